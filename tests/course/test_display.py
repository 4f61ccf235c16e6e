"""course.display: what the cells show (the decision table of a burst)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reservation_lab import course as lab
from reservation_lab.course.display import decision_table
from reservation_lab.i18n import COURSE_LANGUAGES, message
from tests.domain.test_invariants import decision, serial_burst


def test_decision_table_sorts_naturally() -> None:
    """request-2 comes before request-10, whatever order the answers arrived in."""
    decisions = serial_burst([1] * 12)
    shuffled = decisions[9:] + decisions[:9][::-1]
    rows = decision_table(shuffled)
    assert [row["requestId"] for row in rows] == [f"request-{i}" for i in range(1, 13)]


def test_decision_table_row_fields() -> None:
    """Each row: requestId, HTTP code, status, reserved, replayed and the number of attempts."""
    rows = decision_table([decision("request-1", 201, "accepted", 1, attempts=2), decision("request-2", None)])
    assert rows == [
        {"requestId": "request-1", "http": 201, "status": "accepted", "reserved": 1, "replayed": False,
         "attempts": 2},
        {"requestId": "request-2", "http": None, "status": None, "reserved": None, "replayed": None, "attempts": 1},
    ]


def test_decision_table_with_names_without_a_number() -> None:
    """Names without a numeric tail (request-after-restart) are sorted without error."""
    rows = decision_table([decision("request-after-restart", 409, "rejected", 4),
                           decision("request-10", 409, "rejected", 4),
                           decision("request-9", 409, "rejected", 4)])
    ids = [row["requestId"] for row in rows]
    assert ids.index("request-9") < ids.index("request-10")
    assert set(ids) == {"request-after-restart", "request-9", "request-10"}


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_the_burst_lines_say_the_decision_in_the_learners_words(language: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """As the race table and the plot do: angenommen / aceita / aceptada, not the API's `accepted`."""
    lab.start(language, tmp_path / "run")
    lab.show_decisions([*serial_burst([3, 2]), decision("request-3", None)])
    lines = capsys.readouterr().out.splitlines()
    words = [message(f"checker.status_{status}", language) for status in ("accepted", "rejected")]
    assert [line.split()[1:3] for line in lines] == [["201", words[0]], ["409", words[1]], ["–", "–"]]
    assert not any(re.search(r"\b(accepted|rejected)\b", line) for line in lines), lines
    assert lines[0].index("reserved=") == lines[1].index("reserved=")  # one column, whatever the words' lengths
