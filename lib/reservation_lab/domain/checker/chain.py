"""The chain of accepted answers along the counter, the rejections placed on it, and the serial order it gives.

Sorted by `reserved`, each accepted request moves the counter from `reserved - seats` to `reserved`: a repeated
value or an overlap is a lost update, a value above capacity is overbooking, and a hole is left for undecided
requests to fill (`fill`). Each rejection must have seen a state of the chain that really had no room.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any, NamedTuple

from reservation_lab.domain.checker.history import Record
from reservation_lab.domain.checker.verdict import COUNTER, Problems, Step
from reservation_lab.i18n import Message, plural

Link = tuple[Record, int, int]  # (request, from, to): one accepted request in counter order


class Hole(NamedTuple):
    """A climb of the counter that no accepted answer explains: from `lo` to `hi`, before `links[position]`."""

    position: int
    lo: int
    hi: int
    left_by: str | None  # the request that left the counter at lo (None: the start)
    then: Record | None  # the accepted request that continues from hi (None: the climb at the end)


def states_inside(rejected_states: list[int], lo: int, hi: int) -> list[int]:
    """The states rejections saw strictly between lo and hi: a filling of that hole must pass through them."""
    return rejected_states[bisect_right(rejected_states, lo):bisect_left(rejected_states, hi)]


class Chain(NamedTuple):
    """The accepted answers as links from the start, the holes between them, and where they leave the counter."""

    links: list[Link]
    holes: list[Hole]
    end: int
    last_name: str | None  # the request that left the counter at end (None: the start)


def link_accepted(accepted: list[Record], start: int, capacity: int, problems: Problems) -> Chain:
    """The accepted answers (sorted by reserved) as a chain from start; lost updates and overbooking are problems."""
    links: list[Link] = []
    holes: list[Hole] = []
    current, last_name = start, None  # the counter, and who left it there
    previous: Record | None = None
    for rec in accepted:
        r, lo = rec.reserved, rec.reserved - rec.seats
        if previous is not None and r == previous.reserved:
            problems.add(COUNTER, r, "same_reserved", first=previous.request_id, second=rec.request_id, reserved=r)
            continue
        if r > capacity:
            problems.add(COUNTER, r, "overbooking", rid=rec.request_id, reserved=r, capacity=capacity)
        if lo < current:
            if last_name is None:
                problems.add(COUNTER, lo, "below_start", rid=rec.request_id, lo=lo, hi=r, start=start)
            else:
                problems.add(COUNTER, lo, "overlap", rid=rec.request_id, lo=lo, hi=r, other=last_name,
                             current=current)
        elif lo > current:
            holes.append(Hole(len(links), current, lo, last_name, rec))
        if r > current:
            links.append((rec, lo, r))
            current, last_name = r, rec.request_id
        previous = rec
    return Chain(links, holes, current, last_name)


def final_climb(chain: Chain, rejected_states: list[int], after: Mapping[str, Any] | None) -> Hole | None:
    """The climb after the last accepted answer: to the durable reserved, else to the highest rejection state."""
    current = chain.end
    target = after["reserved"] if after is not None and type(after["reserved"]) is int else None
    if target is None and rejected_states and rejected_states[-1] > current:
        target = rejected_states[-1]
    if target is not None and target > current:
        return Hole(len(chain.links), current, target, chain.last_name, None)
    return None


def place_rejections(rejected: list[Record], links: list[Link], start: int, capacity: int,
                     problems: Problems) -> dict[int, list[Record]]:
    """The rejections by the chain state they saw; a state off the chain or one with room is a problem."""
    states = {start}
    states.update(hi for _, _, hi in links)
    chain_states: list[int] = []
    rejected_at: dict[int, list[Record]] = {}
    for rec in rejected:
        x = rec.reserved
        if x not in states:
            chain_states = chain_states or sorted(states)
            i = bisect_left(chain_states, x)
            where = (Message("checker.where_below", {"start": start}) if i == 0 else
                     Message("checker.where_above", {"last": chain_states[-1]}) if i == len(chain_states) else
                     Message("checker.where_between", {"lower": chain_states[i - 1], "upper": chain_states[i]}))
            problems.add(COUNTER, x, "never_existed", rid=rec.request_id, reserved=x, where=where)
        elif x + rec.seats <= capacity:
            problems.add(COUNTER, x, "false_rejection", rid=rec.request_id, reserved=x,
                         fit=plural("checker.fit", rec.seats), capacity=capacity)
        else:
            rejected_at.setdefault(x, []).append(rec)
    return rejected_at


def serial_steps(start: int, end: int, links: list[Link], rejected_at: dict[int, list[Record]],
                 applied: list[Record], extra_rejected: list[Record]) -> list[Step]:
    """The serial order: each accepted link followed by the rejections that saw its state, undecided ones last."""
    unknown_ids = {rec.request_id for rec in applied}
    steps = [Step(rej.request_id, rej.seats, "rejected", start) for rej in rejected_at.get(start, ())]
    for rec, _, hi in links:
        steps.append(Step(rec.request_id, rec.seats, "accepted", hi, rec.request_id in unknown_ids))
        seen_hi = rejected_at.get(hi)
        if seen_hi:  # most states saw no rejection (an empty generator per link cost 30 ms per 100,000 responses)
            steps.extend(Step(rej.request_id, rej.seats, "rejected", hi) for rej in seen_hi)
    steps.extend(Step(rec.request_id, rec.seats, "rejected", end, True) for rec in extra_rejected)
    return steps
