"""domain.ledger: every check is recorded; in grading mode a failed check is shown and does not stop the run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from reservation_lab.domain.invariants import Summary, check_equal
from reservation_lab.domain.ledger import LEDGER, LEDGER_FILE
from reservation_lab.errors import InvariantError
from reservation_lab.i18n import set_language


@pytest.fixture(autouse=True)
def fresh_ledger() -> Iterator[None]:
    yield
    LEDGER.start(False, None)


def test_a_learner_stops_at_the_first_failed_check_and_the_ledger_has_both(tmp_path: Path) -> None:
    LEDGER.start(False, tmp_path)
    check_equal("wrangler_version", "4.132.0", "4.132.0")
    with pytest.raises(InvariantError):
        check_equal("burst_summary", Summary(3, 7, 3), Summary(4, 6, 4))
    assert json.loads((tmp_path / LEDGER_FILE).read_text()) == [
        {"label": "wrangler_version", "passed": True, "expected": "4.132.0", "actual": "4.132.0"},
        {"label": "burst_summary", "passed": False, "expected": {"accepted": 4, "rejected": 6, "highestReserved": 4},
         "actual": {"accepted": 3, "rejected": 7, "highestReserved": 3}}]


def test_in_grading_mode_a_failed_check_is_shown_in_the_language_and_the_run_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    LEDGER.start(True, tmp_path)
    set_language("es")
    check_equal("naive_serial", True, False)
    check_equal("atomic_serial", True, True)
    shown = capsys.readouterr().out
    assert "sí" in shown and "no" in shown and "True" not in shown
    assert [(entry["label"], entry["passed"]) for entry in LEDGER.entries] == [("naive_serial", False),
                                                                             ("atomic_serial", True)]
