"""Summaries of a burst and the lab's invariants, checked with messages that say what broke."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, NoReturn

from reservation_lab.domain.decisions import Decision
from reservation_lab.domain.facts import CAPACITY, STATUS_FIELDS
from reservation_lab.domain.ledger import Ledger
from reservation_lab.errors import BurstReplayed, InvariantError
from reservation_lab.i18n import REFERENCE, Message, describe, plural


@dataclass(frozen=True)
class Summary:
    """What the responses of a burst say, in the seeds' shape."""

    accepted: int
    rejected: int
    highestReserved: int  # noqa: N815 - the seeds' JSON field name

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def summarize(decisions: Iterable[Decision]) -> Summary:
    """Count accepted and rejected answers and the highest `reserved` any answer reported."""
    decisions = list(decisions)
    return Summary(
        accepted=sum(d.status == "accepted" for d in decisions),
        rejected=sum(d.status == "rejected" for d in decisions),
        highestReserved=max((d.reserved or 0 for d in decisions), default=0),
    )


def expected_summary(burst_size: int, capacity: int = CAPACITY, reserved_before: int = 0) -> Summary:
    """The only possible summary of a burst of one-seat requests with distinct new requestIds."""
    room = capacity - reserved_before
    accepted = max(0, min(burst_size, room))
    return Summary(accepted=accepted, rejected=burst_size - accepted, highestReserved=reserved_before + accepted)


def expected_totals(burst_size: int, capacity: int = CAPACITY) -> dict[str, int]:
    """The durable totals of a new workshop after one burst of `burst_size` one-seat requests."""
    fresh = {"capacity": capacity, "reserved": 0, "acceptedRequests": 0, "rejectedRequests": 0, "acceptedSeats": 0}
    return totals_after(fresh, expected_summary(burst_size, capacity))


def durable_view(status: Mapping[str, Any]) -> dict[str, int]:
    """The durable totals without the workshop name."""
    return {name: status[name] for name in STATUS_FIELDS}


def fail(key: str, **values: Any) -> NoReturn:
    """Raise InvariantError with the catalog message `invariants.<key>`."""
    raise InvariantError(f"invariants.{key}", **values)


def all_replayed(decisions: Iterable[Decision]) -> bool:
    """Every answer of a (non-empty) burst was a replay: its requestIds had all been decided before."""
    decisions = list(decisions)
    return bool(decisions) and all(d.replayed for d in decisions)


def check_burst(
    decisions: Iterable[Decision],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
) -> Summary:
    """Check one burst of new requestIds against the durable status before and after it.

    Holds when: every request got a decision (201 accepted / 409 rejected); no answer reports more
    than capacity; the accepted seats equal the growth of `reserved`; one attempt row per request;
    and `reserved` equals the accepted seats, never above capacity.
    """
    decisions = list(decisions)
    capacity = after["capacity"]
    if all_replayed(decisions):
        raise BurstReplayed(plural("invariants.all_replayed", len(decisions)))
    for d in decisions:
        if not d.decided:
            fail("no_decision", rid=d.request_id, code=d.status_code, body=json.dumps(d.body, ensure_ascii=False),
                 attempts=plural("lines.attempts", len(d.attempts)))
        expected = "accepted" if d.status_code == 201 else "rejected"
        if d.status != expected:
            fail("status_mismatch", rid=d.request_id, code=d.status_code, status=json.dumps(d.status))
        if d.reserved is None or d.reserved > capacity:
            fail("above_capacity", rid=d.request_id, reserved=d.reserved, capacity=capacity)
        if d.replayed and not d.retried_after_failure:  # a retry may meet its own lost first answer
            fail("unexpected_replay", rid=d.request_id)
    summary = summarize(decisions)
    problems = growth_problems([d for d in decisions if d.status == "accepted"], before, after)
    if after["rejectedRequests"] - before["rejectedRequests"] != summary.rejected:
        problems.append(plural("invariants.rejected_vs_rows", summary.rejected,
                               grew=after["rejectedRequests"] - before["rejectedRequests"]))
    if problems:
        raise InvariantError(problems[0])
    check_status(after)
    return summary


def growth_problems(accepted: list[Decision], before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Message]:
    """What the accepted answers say against the durable growth: `reserved` by their seats, `acceptedRequests`
    by their number (each disagreement as a catalog message)."""
    problems = []
    seats, grew = sum(d.seats for d in accepted), after["reserved"] - before["reserved"]
    if grew != seats:
        problems.append(Message("invariants.seats_vs_counter", {"seats": seats, "grew": grew}))
    grew = after["acceptedRequests"] - before["acceptedRequests"]
    if grew != len(accepted):
        problems.append(plural("invariants.accepted_vs_rows", len(accepted), grew=grew))
    return problems


def check_status(status: Mapping[str, Any]) -> None:
    """The durable totals agree with themselves: reserved == acceptedSeats <= capacity."""
    if status["reserved"] != status["acceptedSeats"]:
        fail("reserved_vs_log", reserved=status["reserved"], seats=status["acceptedSeats"])
    if not 0 <= status["reserved"] <= status["capacity"]:
        fail("reserved_outside", reserved=status["reserved"], capacity=status["capacity"])


def check_equal(label: str, actual: Any, expected: Any, ledger: Ledger | None = None, language: str = REFERENCE,
                **values: Any) -> None:
    """Assert actual == expected; `label` names what was compared: a key of the catalog's `checks` section
    (with the `values` of its placeholders), so the failure reads in the learner's language. With a `ledger` the
    check is recorded there, and a record-only ledger prints a failure (in `language`) instead of raising."""
    label_message = Message(f"checks.{label}", values, count="n" if "n" in values else None)  # {n}: a count
    describe(label_message, REFERENCE)  # an unknown label fails at once, not only when the check fails
    passed = actual == expected
    if ledger is not None:
        ledger.record(label, passed, expected, actual)
    if passed:
        return
    failed = Message("invariants.not_equal", {"label": label_message, "expected": shown_value(expected),
                                               "actual": shown_value(actual)})
    if ledger is not None and ledger.record_only:  # a teacher's run records the failure and goes on
        print(describe(failed, language))
        return
    raise InvariantError(failed)


def shown_value(value: Any) -> Any:
    """A value as a learner reads it in a sentence: yes/no in the notebook's language for a bool, JSON for a
    record (anything with as_dict(), a dict, a list), the value itself otherwise — never a Python repr."""
    if isinstance(value, bool):
        return Message("invariants.yes" if value else "invariants.no")
    if hasattr(value, "as_dict"):
        value = value.as_dict()
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False)
    return value


def totals_after(status: Mapping[str, int], late: Summary) -> dict[str, int]:
    """The durable totals expected after one more one-seat request, given its expected summary."""
    return {
        "capacity": status["capacity"],
        "reserved": late.highestReserved,
        "acceptedRequests": status["acceptedRequests"] + late.accepted,
        "rejectedRequests": status["rejectedRequests"] + late.rejected,
        "acceptedSeats": late.highestReserved,
    }


def answered_totals_problems(
    decisions: Iterable[Decision],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
) -> list[str]:
    """The durable totals against the final answers of distinct requestIds, where an answer may be a replay (a
    retry whose earlier attempt had taken effect): every disagreement, an empty list when all hold.

    Checks `check_status(after)`, that `reserved` grew by the accepted seats, `acceptedRequests` by the accepted
    answers, and the stored attempts (accepted + rejected) by the distinct requestIds. Unlike `check_burst` it
    allows replays and reports every problem instead of raising at the first.
    """
    decisions = list(decisions)
    problems = []
    try:
        check_status(after)
    except InvariantError as error:
        problems.append(error.message)
    problems += growth_problems([d for d in decisions if d.status_code == 201], before, after)
    distinct = len({d.request_id for d in decisions})
    stored = (after["acceptedRequests"] + after["rejectedRequests"]
              - before["acceptedRequests"] - before["rejectedRequests"])
    if stored != distinct:
        problems.append(plural("invariants.stored_vs_distinct", distinct, stored=stored))
    return [describe(problem, REFERENCE) for problem in problems]  # a drill's report is English
