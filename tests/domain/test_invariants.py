"""The lab's invariants on hand-made decisions: summaries, the decision table and what check_burst refuses."""

from __future__ import annotations

from typing import Any

import pytest

from reservation_lab.domain.decisions import Attempt, Decision
from reservation_lab.domain.invariants import (
    CAPACITY,
    Summary,
    check_burst,
    check_equal,
    check_status,
    durable_view,
    expected_summary,
    summarize,
    totals_after,
)
from reservation_lab.errors import InvariantError
from reservation_lab.i18n import Message, message, plural
from tests.support import raises_key


def decision(
    request_id: str,
    status_code: int | None,
    status: str | None = None,
    reserved: int | None = None,
    seats: int = 1,
    replayed: bool = False,
    attempts: int = 1,
    capacity: int = CAPACITY,
) -> Decision:
    """A Decision shaped like the Worker's answer (body fields requestId/seats/status/capacity/reserved/replayed)."""
    body: dict[str, Any] = {}
    if status is not None:
        body = {"requestId": request_id, "seats": seats, "status": status, "capacity": capacity,
                "reserved": reserved, "replayed": replayed}
    tries = [Attempt(0.01 * i, 0.01 * i + 0.005, status_code) for i in range(attempts)]
    return Decision(request_id, seats, status_code, body, tries)


def serial_burst(seats: list[int], capacity: int = CAPACITY, reserved_before: int = 0,
                 prefix: str = "request") -> list[Decision]:
    """What a correct Worker answers when the requests are decided one after another (the reference model)."""
    reserved = reserved_before
    decisions = []
    for i, n in enumerate(seats, start=1):
        if reserved + n <= capacity:
            reserved += n
            decisions.append(decision(f"{prefix}-{i}", 201, "accepted", reserved, seats=n, capacity=capacity))
        else:
            decisions.append(decision(f"{prefix}-{i}", 409, "rejected", reserved, seats=n, capacity=capacity))
    return decisions


def status(reserved: int, accepted: int, rejected: int, accepted_seats: int | None = None,
           capacity: int = CAPACITY) -> dict[str, Any]:
    """A /status body."""
    return {"workshop": "launch-day", "capacity": capacity, "reserved": reserved, "acceptedRequests": accepted,
            "rejectedRequests": rejected, "acceptedSeats": reserved if accepted_seats is None else accepted_seats}


EMPTY = status(0, 0, 0)


def valid_burst() -> tuple[list[Decision], dict[str, Any], dict[str, Any]]:
    """Ten one-seat requests on an empty workshop of capacity 4: 4 accepted, 6 rejected."""
    return serial_burst([1] * 10), EMPTY, status(4, 4, 6)


# --- summarize / expected_summary -------------------------------------------------------------


def test_summarize_counts_answers_and_highest_reserved() -> None:
    """Accepted and rejected answers are counted; highestReserved is the largest reserved any answer reported."""
    assert summarize(serial_burst([1] * 10)) == Summary(accepted=4, rejected=6, highestReserved=4)
    assert summarize(serial_burst([1, 1])) == Summary(accepted=2, rejected=0, highestReserved=2)


def test_summarize_of_nothing_and_of_undecided() -> None:
    """No decisions, or undecided ones (no body), count as zero."""
    assert summarize([]) == Summary(0, 0, 0)
    assert summarize([decision("request-1", None), decision("request-2", 500)]) == Summary(0, 0, 0)


def test_summary_as_dict_uses_the_seeds_field_names() -> None:
    """as_dict() has exactly accepted, rejected, highestReserved."""
    assert Summary(4, 6, 4).as_dict() == {"accepted": 4, "rejected": 6, "highestReserved": 4}


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, Summary(0, 0, 0)),
        (1, Summary(1, 0, 1)),
        (3, Summary(3, 0, 3)),
        (4, Summary(4, 0, 4)),
        (10, Summary(4, 6, 4)),
        (25, Summary(4, 21, 4)),
    ],
)
def test_expected_summary_by_size(size: int, expected: Summary) -> None:
    """Capacity 4: up to four accepted, the rest rejected, never above four reserved."""
    assert expected_summary(size) == expected


@pytest.mark.parametrize(
    ("size", "reserved_before", "expected"),
    [
        (1, 3, Summary(1, 0, 4)),
        (1, 4, Summary(0, 1, 4)),
        (10, 2, Summary(2, 8, 4)),
        (3, 1, Summary(3, 0, 4)),
        (5, 4, Summary(0, 5, 4)),
    ],
)
def test_expected_summary_with_seats_already_reserved(size: int, reserved_before: int, expected: Summary) -> None:
    """Only the room left can be accepted."""
    assert expected_summary(size, reserved_before=reserved_before) == expected


@pytest.mark.parametrize(
    ("size", "reserved_before", "capacity"),
    [(size, before, capacity) for capacity in (1, 4, 7) for before in (0, 1, 3) if before <= capacity
     for size in (1, 3, 4, 10, 25)],
)
def test_expected_summary_agrees_with_the_serial_reference(size: int, reserved_before: int, capacity: int) -> None:
    """expected_summary is what one-at-a-time decisions would produce."""
    decisions = serial_burst([1] * size, capacity=capacity, reserved_before=reserved_before)
    assert expected_summary(size, capacity=capacity, reserved_before=reserved_before) == summarize(decisions)


# --- check_burst: what holds ------------------------------------------------------------------


def test_check_burst_passes_on_a_valid_burst() -> None:
    """Ten requests, four accepted: the summary is returned and equals the expected one."""
    decisions, before, after = valid_burst()
    assert check_burst(decisions, before, after) == expected_summary(10)


def test_check_burst_passes_on_a_second_burst() -> None:
    """Totals before the burst are subtracted: a later burst on a partly full workshop."""
    decisions = serial_burst([1] * 5, reserved_before=2, prefix="second")
    assert check_burst(decisions, status(2, 2, 0), status(4, 4, 3)) == Summary(2, 3, 4)


def test_check_burst_accepts_retried_decisions() -> None:
    """A decision that took several attempts is still a decision."""
    decisions = [decision("request-1", 201, "accepted", 1, attempts=3)]
    assert check_burst(decisions, EMPTY, status(1, 1, 0)) == Summary(1, 0, 1)


def test_check_burst_with_mixed_seat_sizes() -> None:
    """Seats, not requests, make `reserved` grow: 2+1 accepted, 3 rejected, 1 accepted fills capacity 4."""
    decisions = serial_burst([2, 1, 3, 1])
    assert [d.status for d in decisions] == ["accepted", "accepted", "rejected", "accepted"]
    summary = check_burst(decisions, EMPTY, status(4, 3, 1))
    assert summary == Summary(accepted=3, rejected=1, highestReserved=4)


def test_check_burst_mixed_seats_counter_grew_by_requests_not_seats() -> None:
    """A counter that adds one per accepted request (not its seats) is caught."""
    decisions = serial_burst([2, 1, 3, 1])
    with raises_key("invariants.seats_vs_counter", InvariantError, seats=4, grew=3):
        check_burst(decisions, EMPTY, status(3, 3, 1))


# --- check_burst: what it refuses -------------------------------------------------------------


@pytest.mark.parametrize("status_code", [None, 500, 503])
def test_check_burst_refuses_an_undecided_request(status_code: int | None) -> None:
    """A request that never got 201/409 is named, with its HTTP code and attempts."""
    decisions, before, after = valid_burst()
    decisions[2] = decision("request-3", status_code, attempts=4)
    with raises_key("invariants.no_decision", InvariantError, rid="request-3", code=status_code,
                    attempts=plural("lines.attempts", 4)):
        check_burst(decisions, before, after)


@pytest.mark.parametrize(
    ("index", "bad", "key", "values"),
    [
        # the HTTP code and the body's status must agree
        (5, decision("request-6", 201, "rejected", 4), "status_mismatch",
         {"rid": "request-6", "code": 201, "status": '"rejected"'}),
        (0, decision("request-1", 409, "accepted", 1), "status_mismatch",
         {"rid": "request-1", "code": 409, "status": '"accepted"'}),
        # no answer may report more seats reserved than the capacity
        (4, decision("request-5", 201, "accepted", 5), "above_capacity",
         {"rid": "request-5", "reserved": 5, "capacity": 4}),
        # new requestIds cannot be answered as replays
        (7, decision("request-8", 409, "rejected", 4, replayed=True), "unexpected_replay", {"rid": "request-8"}),
    ],
    ids=["201-rejected", "409-accepted", "above-capacity", "replay-in-fresh-burst"],
)
def test_check_burst_refuses_a_wrong_answer(index: int, bad: Any, key: str, values: dict[str, Any]) -> None:
    """One answer of a valid burst replaced by a wrong one: check_burst names it."""
    decisions, before, after = valid_burst()
    decisions[index] = bad
    with raises_key(f"invariants.{key}", InvariantError, **values):
        check_burst(decisions, before, after)


def test_check_burst_refuses_a_lost_update() -> None:
    """Four accepted answers but the counter grew by three: an update was lost."""
    decisions, before, _ = valid_burst()
    with raises_key("invariants.seats_vs_counter", InvariantError, seats=4, grew=3):
        check_burst(decisions, before, status(3, 4, 6, accepted_seats=4))


def test_check_burst_refuses_overbooking_by_answers() -> None:
    """Five answers say accepted on capacity 4 (each reporting reserved <= 4): the counter cannot match."""
    decisions = [decision(f"request-{i}", 201, "accepted", min(i, 4)) for i in range(1, 6)]
    with raises_key("invariants.seats_vs_counter", InvariantError, seats=5, grew=4):
        check_burst(decisions, EMPTY, status(4, 4, 0))


@pytest.mark.parametrize(
    ("after", "key", "n", "grew"),
    [
        (status(4, 3, 6), "accepted_vs_rows", 4, 3),
        (status(4, 5, 6), "accepted_vs_rows", 4, 5),
        (status(4, 4, 5), "rejected_vs_rows", 6, 5),
        (status(4, 4, 7), "rejected_vs_rows", 6, 7),
    ],
)
def test_check_burst_refuses_wrong_request_counts(after: dict[str, Any], key: str, n: int, grew: int) -> None:
    """The attempt log must have grown by exactly the accepted and rejected answers."""
    decisions, before, _ = valid_burst()
    with raises_key(f"invariants.{key}", InvariantError, n=n, grew=grew):
        check_burst(decisions, before, after)


def test_check_burst_checks_the_final_status_too() -> None:
    """Deltas that fit but a final status whose reserved disagrees with acceptedSeats is refused."""
    decisions, before, _ = valid_burst()
    with raises_key("invariants.reserved_vs_log", InvariantError, reserved=4, seats=3):
        check_burst(decisions, before, status(4, 4, 6, accepted_seats=3))


# --- check_status / check_equal ---------------------------------------------------------------


@pytest.mark.parametrize("totals", [status(0, 0, 0), status(4, 4, 6), status(3, 2, 1), status(4, 3, 1)])
def test_check_status_passes(totals: dict[str, Any]) -> None:
    """reserved == acceptedSeats within 0..capacity holds."""
    check_status(totals)


def test_check_status_refuses_reserved_not_equal_accepted_seats() -> None:
    """The counter and the attempt log disagree."""
    with raises_key("invariants.reserved_vs_log", InvariantError, reserved=4, seats=3):
        check_status(status(4, 4, 6, accepted_seats=3))


def test_check_status_refuses_reserved_above_capacity() -> None:
    """Even when the log agrees, more than capacity is overbooking."""
    with raises_key("invariants.reserved_outside", InvariantError, reserved=5, capacity=4):
        check_status(status(5, 5, 0))


def test_check_status_refuses_negative_reserved() -> None:
    """A negative counter is outside the range too."""
    with raises_key("invariants.reserved_outside", InvariantError, reserved=-1, capacity=4):
        check_status(status(-1, 0, 0))


def test_check_equal_names_what_was_compared() -> None:
    """check_equal passes on equal values and names the label, expected and actual otherwise."""
    check_equal("burst_summary", Summary(4, 6, 4), expected_summary(10))
    with raises_key("invariants.not_equal", InvariantError, label=Message("checks.final_totals"), expected=4,
                    actual=3) as raised:
        check_equal("final_totals", 3, 4)
    german = raised.value.localized("de")
    assert german != str(raised.value) and german.startswith(message("checks.final_totals", "de") + ":")
    with pytest.raises(KeyError, match="checks.no_such_label"):  # an unknown label fails even when equal
        check_equal("no_such_label", 1, 1)


def test_invariant_error_is_an_assertion_error() -> None:
    """pytest and plain asserts treat a broken invariant as a failed assertion."""
    assert issubclass(InvariantError, AssertionError)


def test_totals_after_one_more_request() -> None:
    """After a burst filled the workshop, one more request is a rejection and nothing else changes."""
    full = durable_view(status(4, 4, 6))
    assert totals_after(full, expected_summary(1, reserved_before=4)) == {**full, "rejectedRequests": 7}
    partly = durable_view(status(2, 2, 0))
    assert totals_after(partly, expected_summary(1, reserved_before=2)) == {
        "capacity": 4, "reserved": 3, "acceptedRequests": 3, "rejectedRequests": 0, "acceptedSeats": 3}


def test_durable_view_drops_the_workshop_name() -> None:
    """durable_view keeps exactly the five durable totals."""
    assert durable_view(status(4, 4, 6)) == {"capacity": 4, "reserved": 4, "acceptedRequests": 4,
                                             "rejectedRequests": 6, "acceptedSeats": 4}
