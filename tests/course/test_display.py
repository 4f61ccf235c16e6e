"""course.display: what the cells show (the decision table of a burst)."""

from __future__ import annotations

from reservation_lab.course.display import decision_table
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
