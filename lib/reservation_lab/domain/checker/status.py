"""The status dicts around the burst: `before` (where the chain starts) and the optional durable `after`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reservation_lab.domain.checker.history import Record
from reservation_lab.domain.checker.verdict import ANSWERS, DURABLE, Problems
from reservation_lab.domain.facts import STATUS_FIELDS
from reservation_lab.errors import LabError
from reservation_lab.i18n import plural, quoted


def starting_state(before: Mapping[str, Any], after: Mapping[str, Any] | None, problems: Problems) -> tuple[int, int]:
    """The capacity and the counter before the burst; LabError if the status dicts lack what the check needs."""
    if "capacity" not in before or "reserved" not in before:
        raise LabError("errors.status_before")
    if after is not None:
        missing = [f"after.{name}" for name in STATUS_FIELDS if name not in after]
        missing += [f"before.{name}" for name in ("acceptedRequests", "rejectedRequests") if name not in before]
        if missing:
            raise LabError("errors.status_lacks", missing=", ".join(missing))
    capacity, start = before["capacity"], before["reserved"]
    if not (type(capacity) is int and type(start) is int):
        raise LabError("errors.status_integers", capacity=quoted(capacity), reserved=quoted(start))
    if not 0 <= start <= capacity:
        problems.add(ANSWERS, -1, "impossible_start", start=start, capacity=capacity)
    return capacity, start


def wanted_undecided(before: Mapping[str, Any], after: Mapping[str, Any] | None, n_accepted: int,
                     n_rejected: int) -> tuple[int | None, int | None]:
    """How many undecided requests the durable counts say were accepted and rejected (None without `after`)."""
    if after is None:
        return None, None
    return (after["acceptedRequests"] - before["acceptedRequests"] - n_accepted,
            after["rejectedRequests"] - before["rejectedRequests"] - n_rejected)


def check_after(after: Mapping[str, Any], before: Mapping[str, Any], capacity: int, end: int, decided_end: int,
                n_accepted: int, n_rejected: int, applied: list[Record], leftover: list[Record],
                problems: Problems) -> list[Record]:
    """The durable status after the burst against the chain's end and the numbers of decisions.

    Returns the undecided requests (of `leftover`) that the durable count of rejections says were rejected.
    """
    reserved = after["reserved"]
    if after["capacity"] != capacity:
        problems.add(DURABLE, 0, "after_capacity", said=after["capacity"], capacity=capacity)
    if reserved < decided_end:
        problems.add(DURABLE, 1, plural("checker.after_lost_write", decided_end - reserved, reserved=reserved,
                                        decided=decided_end))
    elif reserved != end:
        problems.add(DURABLE, 1, "after_unexplained", reserved=reserved, end=end,
                     taken=plural("checker.taken", reserved - end))
    if after["acceptedSeats"] != reserved:
        problems.add(DURABLE, 2, "after_seats", reserved=reserved, seats=after["acceptedSeats"])
    grew = after["acceptedRequests"] - before["acceptedRequests"]
    if grew != n_accepted + len(applied):
        counted = plural("checker.counted_accepted", len(applied)) if applied else ""
        problems.add(DURABLE, 3, plural("checker.after_accepted", n_accepted, counted=counted, grew=grew))
    grew = after["rejectedRequests"] - before["rejectedRequests"]
    could = [rec for rec in leftover if end + rec.seats > capacity]  # undecided ones that may have been rejected
    if n_rejected <= grew <= n_rejected + len(could):
        return could[: grew - n_rejected]
    counted = plural("checker.counted_rejected", len(could)) if could else ""
    problems.add(DURABLE, 4, plural("checker.after_rejected", n_rejected, counted=counted, grew=grew))
    return []
