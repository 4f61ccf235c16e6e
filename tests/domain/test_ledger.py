"""domain.ledger: every check is recorded; in a record-only run a failed check is shown and does not stop the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reservation_lab.domain.invariants import Summary, check_equal
from reservation_lab.domain.ledger import LEDGER_FILE, Ledger
from reservation_lab.errors import InvariantError


def test_a_learner_stops_at_the_first_failed_check_and_the_ledger_has_both(tmp_path: Path) -> None:
    ledger = Ledger(False, tmp_path / LEDGER_FILE)
    check_equal("wrangler_version", "4.132.0", "4.132.0", ledger=ledger)
    with pytest.raises(InvariantError):
        check_equal("burst_summary", Summary(3, 7, 3), Summary(4, 6, 4), ledger=ledger)
    assert json.loads((tmp_path / LEDGER_FILE).read_text()) == [
        {"label": "wrangler_version", "passed": True, "expected": "4.132.0", "actual": "4.132.0"},
        {"label": "burst_summary", "passed": False, "expected": {"accepted": 4, "rejected": 6, "highestReserved": 4},
         "actual": {"accepted": 3, "rejected": 7, "highestReserved": 3}}]


def test_in_a_record_only_run_a_failed_check_is_shown_in_the_language_and_the_run_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = Ledger(True, tmp_path / LEDGER_FILE)
    check_equal("naive_serial", True, False, ledger=ledger, language="es")
    check_equal("atomic_serial", True, True, ledger=ledger, language="es")
    shown = capsys.readouterr().out
    assert "sí" in shown and "no" in shown and "True" not in shown
    assert [(entry["label"], entry["passed"]) for entry in ledger.entries] == [("naive_serial", False),
                                                                             ("atomic_serial", True)]
