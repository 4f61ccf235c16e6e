"""Undecided requests as optional links: which of them fill the holes of the chain, passing through every state
a rejection saw inside a hole.

Up to `PLAN_UNKNOWNS` undecided requests the filling is exact (a small dynamic program over how many requests of
each seat count are used, which also matches the durable request counts when they are known); beyond that it is
greedy (`Pool`: one request of exactly the hole's size, else the largest first), which is exact when they all have
one seat. When no filling explains every hole, `diagnose` fills them one by one and reports those that stay open.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from operator import attrgetter

from reservation_lab.domain.checker.chain import Hole, Link, states_inside
from reservation_lab.domain.checker.history import Record
from reservation_lab.domain.checker.verdict import COUNTER, Problems
from reservation_lab.i18n import Message

PLAN_UNKNOWNS = 32  # up to this many undecided requests, the filling is exact (dynamic programming)...
PLAN_STATES = 4096  # ...as long as the seat-count combinations stay this few; beyond, it is greedy

Usage = tuple[int, ...]  # how many requests of each seat count (ascending) are used


class Pool:
    """Undecided requests by seat count, handed out to fill holes in the chain."""

    def __init__(self, records: Iterable[Record]) -> None:
        self.by_seats: dict[int, list[Record]] = {}
        for rec in sorted(records, key=attrgetter("index"), reverse=True):  # pop() hands out input order
            self.by_seats.setdefault(rec.seats, []).append(rec)
        self.total = sum(rec.seats for lists in self.by_seats.values() for rec in lists)
        self.seen = bool(self.by_seats)

    def take(self, gap: int) -> list[Record] | None:
        """Undecided requests whose seats add up to exactly `gap` (removed from the pool), or None."""
        if gap <= 0 or gap > self.total:
            return None
        exact = self.by_seats.get(gap)
        if exact:
            self.total -= gap
            return [exact.pop()]
        sizes = sorted((s for s, lst in self.by_seats.items() if lst and s < gap), reverse=True)
        for first in range(min(len(sizes), 8)):  # largest-first, then without the largest size, ...
            remaining, counts = gap, []
            for size in sizes[first:]:
                k = min(len(self.by_seats[size]), remaining // size)
                if k:
                    counts.append((size, k))
                    remaining -= size * k
                    if remaining == 0:
                        break
            if remaining == 0:
                self.total -= gap
                return [self.by_seats[size].pop() for size, k in counts for _ in range(k)]
        return None

    def give_back(self, records: list[Record]) -> None:
        for rec in reversed(records):
            self.by_seats[rec.seats].append(rec)
            self.total += rec.seats


def climb(at: int, records: Iterable[Record]) -> list[Link]:
    """The records as links, one after the other, starting from the counter value `at`."""
    made = []
    for rec in records:
        made.append((rec, at, at + rec.seats))
        at += rec.seats
    return made


def fill_holes(links: list[Link], holes: list[Hole], rejected_states: list[int], unknown: list[Record],
               room_at_end: int, wanted: tuple[int | None, int | None], problems: Problems, decided_end: int,
               end: int) -> tuple[list[Link], list[Record], int]:
    """The chain with its holes filled by undecided requests, the ones it applied, and the end of the chain.

    `wanted`: how many undecided requests the durable status says were accepted and (at least) rejected.
    When the holes cannot all be filled, the open ones are problems and the end is as far as the climb went.
    """
    segments = [(h, a, b) for h, hole in enumerate(holes)
                for a, b in itertools.pairwise([hole.lo, *states_inside(rejected_states, hole.lo, hole.hi), hole.hi])]
    plan = _plan([b - a for _, a, b in segments], unknown, room_at_end, *wanted)
    fillers: dict[int, list[Link]] = {}
    applied: list[Record] = []
    if plan is not None:
        for (h, a, _), group in zip(segments, plan, strict=True):
            fillers.setdefault(holes[h].position, []).extend(climb(a, group))
            applied.extend(group)
    else:  # no way to fill every hole: find out, hole by hole, which ones cannot be filled
        end = _diagnose(holes, rejected_states, Pool(unknown), problems, fillers, applied, decided_end)
    return _merge(links, fillers), applied, end


def _merge(links: list[Link], fillers: dict[int, list[Link]]) -> list[Link]:
    """The links with each filling inserted before the link at its position."""
    if not fillers:
        return links
    merged: list[Link] = []
    done = 0
    for position, made in sorted(fillers.items()):
        merged += links[done:position]
        merged += made
        done = position
    return merged + links[done:]


def _compositions(gap: int, sizes: list[int], free: list[int], i: int = 0) -> Iterator[Usage]:
    """How many requests of each size add up to exactly `gap` (at most `free[i]` of `sizes[i]`)."""
    if i == len(sizes):
        if gap == 0:
            yield ()
        return
    for count in range(min(free[i], gap // sizes[i]), -1, -1):
        for rest in _compositions(gap - count * sizes[i], sizes, free, i + 1):
            yield (count, *rest)


def _plan(gaps: list[int], unknown: list[Record], room_at_end: int, want_accepted: int | None,
          want_rejected: int | None) -> list[list[Record]] | None:
    """The undecided requests that fill each gap exactly (one group per gap, in order), or None.

    A handful of undecided requests (the usual case) is planned exactly (`_exact`); many are handed out
    greedily instead.
    """
    if not gaps:
        return []
    if len(gaps) > len(unknown) or sum(gaps) > sum(rec.seats for rec in unknown):
        return None
    by_size: dict[int, list[Record]] = {}
    for rec in unknown:
        by_size.setdefault(rec.seats, []).append(rec)
    if len(unknown) > PLAN_UNKNOWNS or math.prod(len(group) + 1 for group in by_size.values()) > PLAN_STATES:
        return _greedy(gaps, unknown)
    return _exact(gaps, by_size, room_at_end, want_accepted, want_rejected)


def _greedy(gaps: list[int], unknown: list[Record]) -> list[list[Record]] | None:
    pool = Pool(unknown)
    groups = []
    for gap in gaps:
        taken = pool.take(gap)
        if taken is None:
            return None
        groups.append(taken)
    return groups


def _exact(gaps: list[int], by_size: dict[int, list[Record]], room_at_end: int, want_accepted: int | None,
           want_rejected: int | None) -> list[list[Record]] | None:
    """Dynamic programming over how many requests of each seat count are used, layer by layer (one per gap),
    keeping every reachable combination; at the end it picks one whose numbers agree with the durable status
    when known (`want_accepted` undecided requests must have been accepted, and at least `want_rejected` of the
    rest rejected, which needs seats > `room_at_end`)."""
    sizes = sorted(by_size)
    counts = [len(by_size[size]) for size in sizes]
    frontier: list[Usage] = [tuple(0 for _ in sizes)]
    back: list[dict[Usage, tuple[Usage, Usage]]] = []  # per gap: usage after it -> (usage before, composition)
    for gap in gaps:
        layer: dict[Usage, tuple[Usage, Usage]] = {}
        for used in frontier:
            for composition in _compositions(gap, sizes, [n - u for n, u in zip(counts, used, strict=True)]):
                layer.setdefault(tuple(u + c for u, c in zip(used, composition, strict=True)), (used, composition))
        if not layer:
            return None
        back.append(layer)
        frontier = list(layer)

    def score(used: Usage) -> tuple[bool, int]:
        applied = sum(used)
        rejectable = sum(n - u for size, n, u in zip(sizes, counts, used, strict=True) if size > room_at_end)
        fits = (want_accepted is None or applied == want_accepted) and (
            want_rejected is None or rejectable >= want_rejected)
        return (not fits, abs(applied - want_accepted) if want_accepted is not None else applied)

    used = min(frontier, key=score)
    compositions = []
    for layer in reversed(back):
        used, composition = layer[used]
        compositions.append(composition)
    queues = {size: iter(by_size[size]) for size in sizes}
    return [[next(queues[size]) for size, count in zip(sizes, composition, strict=True) for _ in range(count)]
            for composition in reversed(compositions)]


def _fill(pool: Pool, lo: int, hi: int, points: list[int]) -> list[Link] | None:
    """Undecided requests taking the counter from lo to hi through `points`, greedily; None if they cannot."""
    made: list[Link] = []
    at = lo
    for target in [*points, hi]:
        taken = pool.take(target - at)
        if taken is None:
            pool.give_back([rec for rec, _, _ in made])
            return None
        made += climb(at, taken)
        at = target
    return made


def _diagnose(holes: list[Hole], rejected_states: list[int], pool: Pool, problems: Problems,
              fillers: dict[int, list[Link]], applied: list[Record], end: int) -> int:
    """No filling explains every hole: fill them one by one, report the holes that stay open, return the end."""
    for hole in holes:
        points = states_inside(rejected_states, hole.lo, hole.hi)
        if hole.then is not None:  # between two accepted answers: must be filled
            made = _fill(pool, hole.lo, hole.hi, points) or _fill(pool, hole.lo, hole.hi, [])
            if made is None:
                _report_gap(hole, hole.then, pool.seen, problems)
                continue
            fillers.setdefault(hole.position, []).extend(made)
            applied.extend(r for r, _, _ in made)
        else:  # the climb at the end: as far as it goes (the rejection and status checks report the rest)
            at = hole.lo
            for point in [*points, hole.hi]:
                made = _fill(pool, at, point, [])
                if made is None:
                    break
                fillers.setdefault(hole.position, []).extend(made)
                applied.extend(r for r, _, _ in made)
                at = point
            end = at
    return end


def _report_gap(hole: Hole, then: Record, undecided_seen: bool, problems: Problems) -> None:
    """A hole before the accepted request `then` that undecided requests cannot fill."""
    left = (Message("checker.left_start", {"lo": hole.lo}) if hole.left_by is None else
            Message("checker.left_by", {"by": hole.left_by, "lo": hole.lo}))
    problems.add(COUNTER, hole.lo, "gap_undecided" if undecided_seen else "gap", lo=hole.lo, hi=hole.hi, left=left,
                 rid=then.request_id, reserved=then.reserved)
