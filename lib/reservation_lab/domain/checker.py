"""A serial-order checker: does SOME one-at-a-time order of the requests explain every answer of a burst?

This is the idea behind Jepsen's linearizability checkers, specialised to the workshop counter, where
it needs no search at all. Every accepted reservation moves the counter up by its seats, so in any
serial order the accepted answers' `reserved` values strictly increase: sorting them by `reserved`
*is* the only possible order of the accepted requests. The checker then verifies, in O(n log n):

* the chain: sorted by `reserved`, each accepted request moves the counter from `reserved - seats`
  to `reserved`, starting at the `reserved` of the state before; a repeated value is a lost update,
  a hole is a gap, an overlap is a lost update too, and a value above capacity is overbooking;
* the rejections: each one saw a state that existed (the start or an accepted result) and that state
  really had no room (`reserved + seats > capacity`);
* the replays (`replayed: true`): they repeat the first decision of their requestId (status,
  `reserved` and seats). Where that first decision is:
    - in the history: the replay must equal it;
    - in `prior` (answers from before the burst, optional): the replay must equal that, and the request
      is not part of this burst's chain;
    - nowhere: the original answer was lost (a retry after a transport error gets the replay, which is
      what `send_burst` does), so the first replay counts as this burst's decision of that request;
* a requestId decided twice without a replay is a contradiction;
* undecided responses (no status: transport errors, 5xx; a requestId with no decision anywhere in the
  history) are "unknown" and may or may not have taken effect, like Jepsen's indeterminate operations.
  They serve as optional links: a hole in the chain (or the climb to the highest rejection state, or
  to the durable `reserved` after the burst) may be filled by undecided requests whose seats add up
  to exactly that hole, passing through every rejection state inside it. Up to 32 undecided requests
  the filling is exact (a small dynamic program over how many requests of each seat count are used,
  which also matches the durable request counts when `after` is given); beyond that it is greedy (one
  request of exactly the hole's size, else the largest first), which is exact when they all have one
  seat. Undecided requests that are not needed did not change the counter: they never arrived or were
  rejected (the durable `rejectedRequests` says how many; they are placed at the end of the order);
* the durable status after the burst (optional): `reserved` equals the end of the chain,
  `acceptedSeats == reserved`, and `acceptedRequests` / `rejectedRequests` grew by the number of new
  accepted / rejected decisions (undecided requests used as links count as accepted; undecided ones
  that would not have fit at the end may count as rejected).

`check_history` returns a `CheckResult`; `explain` turns it into a few sentences in the notebook's language
(German, Brazilian Portuguese, Spanish or English; the words are in `checker_messages`). Each problem is kept as a
`Message` (a template key and its values) in `problem_messages`; `problems` renders them in English when first
read, `describe(message, language)` in any language.
"""

from __future__ import annotations

import gc
import itertools
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter
from typing import Any, NamedTuple

from reservation_lab.domain.burst import Decision
from reservation_lab.errors import LabError
from reservation_lab.i18n.checker_messages import Message, describe, plural

DECIDED = ("accepted", "rejected")
HTTP_FOR = {"accepted": 201, "rejected": 409}
STATUS_FIELDS = ("capacity", "reserved", "acceptedRequests", "rejectedRequests", "acceptedSeats")


class Step(NamedTuple):
    """One request in the serial order: accepted moves the counter to `reserved`; rejected saw `reserved`."""

    request_id: str
    seats: int
    status: str
    reserved: int
    unknown: bool = False  # an undecided request the checker let take effect (or be rejected)


class _EnglishTexts:
    """The `problems` field: the English texts of `problem_messages`, rendered on first read (unless given)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    def __get__(self, result: CheckResult | None, owner: type) -> list[str] | None:
        if result is None:
            return None  # the dataclass default: render from problem_messages
        texts = result.__dict__.get(self.slot)
        if texts is None:
            texts = result.__dict__[self.slot] = [describe(message) for message in result.problem_messages]
        return texts

    def __set__(self, result: CheckResult, texts: list[str] | None) -> None:
        result.__dict__[self.slot] = texts


@dataclass
class CheckResult:
    """The verdict. When `ok`, `order` (and `steps`) is a serial order that explains every answer.

    `problem` (the first) and `problems` are English texts; `problem_messages` are the same problems as `Message`s
    (template key and values), for `describe(message, language)` or `explain(result, language=...)`. `problems`
    is rendered from them when first read, so a check that finds many problems does not pay for their texts.
    """

    ok: bool
    order: list[str]
    problem: str | None
    problems: list[str] = _EnglishTexts()  # type: ignore[assignment]  # a list once read
    steps: list[Step] = field(default_factory=list)
    capacity: int = 0
    start: int = 0
    end: int = 0  # the counter at the end of the chain
    accepted: int = 0  # decisions of this burst (undecided requests not included)
    rejected: int = 0
    unknown: list[str] = field(default_factory=list)  # undecided requestIds
    applied_unknown: list[str] = field(default_factory=list)  # ...of which the order lets these take effect
    problem_messages: list[Message] = field(default_factory=list)  # `problems`, as template keys and values


class _Record:
    """One response, normalised from a `Decision` or a response body dict."""

    __slots__ = ("request_id", "seats", "status", "reserved", "replayed", "capacity", "index", "http")

    def __init__(self, request_id: str, seats: int, status: str | None, reserved: Any, replayed: bool,
                 capacity: Any, index: int, http: int | None) -> None:
        self.request_id = request_id
        self.seats = seats
        self.status = status
        self.reserved = reserved
        self.replayed = replayed
        self.capacity = capacity
        self.index = index
        self.http = http


def _record(response: Decision | Mapping[str, Any], index: int) -> _Record:
    if isinstance(response, Decision):
        body = response.body
        status = body.get("status") if response.decided else None
        seats = body.get("seats", response.seats)
        request_id = response.request_id
        http = response.status_code
    elif isinstance(response, dict | Mapping):
        body = response
        status = body.get("status")
        seats = body.get("seats")
        request_id = body.get("requestId")
        http = None
    else:
        raise LabError(f"Response {index} is a {type(response).__name__}; pass Decision objects or response dicts.")
    if not isinstance(request_id, str):
        raise LabError(f"Response {index} has no requestId ({response!r}); every response must name its request.")
    if type(seats) is not int or seats < 1:
        raise LabError(f"{request_id}: seats must be a positive integer, got {seats!r}.")
    if status not in DECIDED:
        status = None
    return _Record(request_id, seats, status, body.get("reserved"), body.get("replayed") is True,
                   body.get("capacity"), index, http)


def _seats(n: int) -> Message:
    return plural("seats", n)


def _describe(rec: _Record) -> Message:
    return Message("decision", {"status": Message(f"status_{rec.status}", {}), "reserved": rec.reserved,
                                "seats": _seats(rec.seats)})


def _same(a: _Record, b: _Record) -> bool:
    return a.status == b.status and a.reserved == b.reserved and a.seats == b.seats


class _Pool:
    """Undecided requests by seat count, handed out to fill holes in the chain."""

    def __init__(self, records: Iterable[_Record]) -> None:
        self.by_seats: dict[int, list[_Record]] = {}
        for rec in sorted(records, key=attrgetter("index"), reverse=True):  # pop() hands out input order
            self.by_seats.setdefault(rec.seats, []).append(rec)
        self.total = sum(rec.seats for lists in self.by_seats.values() for rec in lists)
        self.seen = bool(self.by_seats)

    def take(self, gap: int) -> list[_Record] | None:
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

    def give_back(self, records: list[_Record]) -> None:
        for rec in reversed(records):
            self.by_seats[rec.seats].append(rec)
            self.total += rec.seats


_message = partial(tuple.__new__, Message)  # Message(key, values) without the Python-level __new__


class _Problems:
    """Contradictions with a sort key: (phase, counter value or input index, sequence), kept as Messages.

    Only the template key and the values are recorded; `CheckResult.problems` renders the texts when read.
    """

    def __init__(self) -> None:
        self.items: list[tuple[int, int, int, Message]] = []

    def add(self, phase: int, key: int, template: str | Message, **values: Any) -> None:
        """Record the problem `template` (a catalog key, with `values`) or a ready Message."""
        message = template if type(template) is Message else _message((template, values))
        self.items.append((phase, key, len(self.items), message))

    def messages(self) -> list[Message]:
        return [message for *_, message in sorted(self.items)]


def _int(value: Any) -> bool:
    return type(value) is int


def check_history(
    responses: Iterable[Decision | Mapping[str, Any]],
    before: Mapping[str, Any],
    after: Mapping[str, Any] | None = None,
    *,
    prior: Iterable[Decision | Mapping[str, Any]] | None = None,
) -> CheckResult:
    """Decide whether some serial order of the requests explains every response of a burst.

    `responses`: `Decision` objects (from `send_burst`) and/or response body dicts (requestId, seats,
    status, reserved, replayed), in any order. `before` / `after`: status dicts (capacity, reserved,
    acceptedRequests, rejectedRequests, acceptedSeats) read before and after the burst; `after` is
    optional. `prior`: answers from before the burst, for replays of requestIds decided earlier.

    The first contradiction (in the order: broken answers, then along the counter, then the durable
    status) is `problem`; all of them are in `problems`. `order` is empty unless `ok`.
    """
    collecting = gc.isenabled()
    gc.disable()  # the check allocates one record per response; generational GC passes would triple its time
    try:
        return _check(responses, before, after, prior)
    finally:
        if collecting:
            gc.enable()


def _check(
    responses: Iterable[Decision | Mapping[str, Any]],
    before: Mapping[str, Any],
    after: Mapping[str, Any] | None,
    prior: Iterable[Decision | Mapping[str, Any]] | None,
) -> CheckResult:
    if "capacity" not in before or "reserved" not in before:
        raise LabError("`before` must be a status dict with at least capacity and reserved.")
    if after is not None:
        missing = [f"after.{name}" for name in STATUS_FIELDS if name not in after]
        missing += [f"before.{name}" for name in ("acceptedRequests", "rejectedRequests") if name not in before]
        if missing:
            raise LabError(f"The status dicts lack {', '.join(missing)}; pass the status route's full answers.")
    capacity, start = before["capacity"], before["reserved"]
    if not (_int(capacity) and _int(start)):
        raise LabError(f"`before` needs integer capacity and reserved, got {capacity!r} and {start!r}.")
    problems = _Problems()
    if not 0 <= start <= capacity:
        problems.add(0, -1, "impossible_start", start=start, capacity=capacity)

    prior_map: dict[str, _Record] = {}
    for i, response in enumerate(prior or ()):
        rec = _record(response, i)
        if rec.status is not None:
            prior_map.setdefault(rec.request_id, rec)

    first: dict[str, _Record] = {}  # requestId -> its first decision (not a replay) in this history
    replays: list[_Record] = []
    undecided: dict[str, _Record] = {}
    for index, response in enumerate(responses):
        if type(response) is dict and type(response.get("requestId")) is str and type(response.get("seats")) is int \
                and response["seats"] > 0:  # the fast path for parsed JSON
            status = response.get("status")
            rec = _Record(response["requestId"], response["seats"], status if status in DECIDED else None,
                          response.get("reserved"), response.get("replayed") is True, response.get("capacity"),
                          index, None)
        else:
            rec = _record(response, index)
        rid = rec.request_id
        status = rec.status
        if status is None:
            if rid not in undecided:
                undecided[rid] = rec
            continue
        if rec.http is not None and rec.http != HTTP_FOR[status]:
            problems.add(0, index, "http_mismatch", rid=rid, http=rec.http, status=status)
        if type(rec.reserved) is not int:
            problems.add(0, index, "invalid_reserved", rid=rid, status=Message(f"status_{status}", {}),
                         reserved=rec.reserved)
            continue
        if rec.capacity is not None and rec.capacity != capacity:
            problems.add(0, index, "capacity_mismatch", rid=rid, answered=rec.capacity, capacity=capacity)
        if rec.replayed:
            replays.append(rec)
            continue
        earlier = prior_map.get(rid)
        if earlier is not None:
            problems.add(0, index, "decided_before_burst", rid=rid, earlier=_describe(earlier), again=_describe(rec))
            continue
        seen = first.get(rid)
        if seen is None:
            first[rid] = rec
        else:
            problems.add(0, index, "decided_twice", rid=rid, first=_describe(seen), then=_describe(rec))

    orphans: dict[str, _Record] = {}  # replays whose first answer is missing: this burst's decision
    for rec in replays:
        rid = rec.request_id
        original = first.get(rid) or prior_map.get(rid)
        if original is None:
            original = orphans.get(rid)
            if original is None:
                orphans[rid] = rec
                continue
        if not _same(rec, original):
            problems.add(0, rec.index, "bad_replay", rid=rid, replay=_describe(rec), original=_describe(original))

    effective = list(first.values()) + list(orphans.values())
    unknown = [rec for rid, rec in undecided.items()
               if rid not in first and rid not in orphans and rid not in prior_map]
    # Sorted by reserved; ties keep the input order (first decisions in input order, then orphan replays).
    accepted = sorted((rec for rec in effective if rec.status == "accepted"), key=attrgetter("reserved"))
    rejected = [rec for rec in effective if rec.status == "rejected"]
    rejected_states = sorted({rec.reserved for rec in rejected})
    # 1. The accepted answers in counter order; the holes between them are left for undecided requests.
    links: list[tuple[_Record, int, int]] = []  # (request, from, to) in counter order
    holes: list[tuple[int, int, int, str | None, _Record | None]] = []  # (position in links, from, to, ...)
    current, last_name = start, None  # the counter, and who left it there
    previous: _Record | None = None
    for rec in accepted:
        r, lo = rec.reserved, rec.reserved - rec.seats
        if previous is not None and r == previous.reserved:
            problems.add(1, r, "same_reserved", first=previous.request_id, second=rec.request_id, reserved=r)
            continue
        if r > capacity:
            problems.add(1, r, "overbooking", rid=rec.request_id, reserved=r, capacity=capacity)
        if lo < current:
            if last_name is None:
                problems.add(1, lo, "below_start", rid=rec.request_id, lo=lo, hi=r, start=start)
            else:
                problems.add(1, lo, "overlap", rid=rec.request_id, lo=lo, hi=r, other=last_name, current=current)
        elif lo > current:
            holes.append((len(links), current, lo, last_name, rec))
        if r > current:
            links.append((rec, lo, r))
            current, last_name = r, rec.request_id
        previous = rec
    decided_end = end = current

    # 2. The climb after the last accepted answer: to the durable reserved, else to the highest rejection state.
    target = after["reserved"] if after is not None and _int(after["reserved"]) else None
    if target is None and rejected_states and rejected_states[-1] > current:
        target = rejected_states[-1]
    if target is not None and target > current:
        holes.append((len(links), current, target, last_name, None))
        end = target

    # 3. Undecided requests fill the holes, passing through every rejection state inside them.
    segments: list[tuple[int, int, int]] = []  # (hole, from, to)
    for h, (_, lo, hi, _, _) in enumerate(holes):
        points = [lo, *rejected_states[bisect_right(rejected_states, lo):bisect_left(rejected_states, hi)], hi]
        segments.extend((h, a, b) for a, b in itertools.pairwise(points))
    want_accepted = want_rejected = None
    if after is not None:
        want_accepted = after["acceptedRequests"] - before["acceptedRequests"] - len(accepted)
        want_rejected = after["rejectedRequests"] - before["rejectedRequests"] - len(rejected)
    plan = _plan([b - a for _, a, b in segments], unknown, capacity - end, want_accepted, want_rejected)
    fillers: dict[int, list[tuple[_Record, int, int]]] = {}
    applied: list[_Record] = []
    if plan is not None:
        for (h, a, _), group in zip(segments, plan, strict=True):
            made = fillers.setdefault(holes[h][0], [])
            for rec in group:
                made.append((rec, a, a + rec.seats))
                a += rec.seats
            applied.extend(group)
    else:  # no way to fill every hole: find out, hole by hole, which ones cannot be filled
        end = _diagnose(holes, rejected_states, _Pool(unknown), problems, fillers, applied, decided_end)
    if fillers:
        merged, done = [], 0
        for position, made in sorted(fillers.items()):
            merged += links[done:position]
            merged += made
            done = position
        links = merged + links[done:]
    used = {id(rec) for rec in applied}
    leftover = [rec for rec in unknown if id(rec) not in used]

    states = {start}
    states.update(hi for _, _, hi in links)
    chain_states: list[int] = []
    rejected_at: dict[int, list[_Record]] = {}
    for rec in rejected:
        x = rec.reserved
        if x not in states:
            chain_states = chain_states or sorted(states)
            i = bisect_left(chain_states, x)
            where = _message(("where_below", {"start": start}) if i == 0 else
                             ("where_above", {"last": chain_states[-1]}) if i == len(chain_states) else
                             ("where_between", {"lower": chain_states[i - 1], "upper": chain_states[i]}))
            problems.add(1, x, "never_existed", rid=rec.request_id, reserved=x, where=where)
        elif x + rec.seats <= capacity:
            problems.add(1, x, "false_rejection", rid=rec.request_id, reserved=x, fit=plural("fit", rec.seats),
                         capacity=capacity)
        else:
            rejected_at.setdefault(x, []).append(rec)

    extra_rejected: list[_Record] = []
    if after is not None:
        _check_after(after, before, capacity, end, decided_end, len(accepted), len(rejected), applied, leftover,
                     problems, extra_rejected)

    messages = problems.messages()
    ok = not messages
    steps: list[Step] = []
    if ok:
        unknown_ids = {rec.request_id for rec in applied}
        make, append = Step._make, steps.append
        for rej in rejected_at.get(start, ()):
            append(make((rej.request_id, rej.seats, "rejected", start, False)))
        for rec, _, hi in links:
            append(make((rec.request_id, rec.seats, "accepted", hi, rec.request_id in unknown_ids)))
            at_hi = rejected_at.get(hi)
            if at_hi:
                for rej in at_hi:
                    append(make((rej.request_id, rej.seats, "rejected", hi, False)))
        for rec in extra_rejected:
            append(make((rec.request_id, rec.seats, "rejected", end, True)))
    return CheckResult(
        ok=ok,
        order=[step.request_id for step in steps],
        problem=describe(messages[0]) if messages else None,
        steps=steps,
        capacity=capacity,
        start=start,
        end=end,
        accepted=len(accepted),
        rejected=len(rejected),
        unknown=[rec.request_id for rec in unknown],
        applied_unknown=[rec.request_id for rec in applied],
        problem_messages=messages,
    )


def _check_after(after: Mapping[str, Any], before: Mapping[str, Any], capacity: int, end: int, decided_end: int,
                 n_accepted: int, n_rejected: int, applied: list[_Record], leftover: list[_Record], problems: _Problems,
                 extra_rejected: list[_Record]) -> None:
    """The durable status after the burst against the chain's end and the numbers of decisions."""
    reserved = after["reserved"]
    if after["capacity"] != capacity:
        problems.add(2, 0, "after_capacity", said=after["capacity"], capacity=capacity)
    if reserved < decided_end:
        problems.add(2, 1, "after_lost_write", reserved=reserved, decided=decided_end)
    elif reserved != end:
        problems.add(2, 1, "after_unexplained", reserved=reserved, end=end, taken=plural("taken", reserved - end))
    if after["acceptedSeats"] != reserved:
        problems.add(2, 2, "after_seats", reserved=reserved, seats=after["acceptedSeats"])
    grew = after["acceptedRequests"] - before["acceptedRequests"]
    if grew != n_accepted + len(applied):
        counted = plural("counted_accepted", len(applied)) if applied else ""
        problems.add(2, 3, plural("after_accepted", n_accepted, counted=counted, grew=grew))
    grew = after["rejectedRequests"] - before["rejectedRequests"]
    could = [rec for rec in leftover if end + rec.seats > capacity]  # undecided ones that may have been rejected
    if n_rejected <= grew <= n_rejected + len(could):
        extra_rejected.extend(could[: grew - n_rejected])
    else:
        counted = plural("counted_rejected", len(could)) if could else ""
        problems.add(2, 4, plural("after_rejected", n_rejected, counted=counted, grew=grew))


PLAN_UNKNOWNS = 32  # up to this many undecided requests, the filling is exact (dynamic programming)...
PLAN_STATES = 4096  # ...as long as the seat-count combinations stay this few; beyond, it is greedy


def _compositions(gap: int, sizes: list[int], free: list[int], i: int = 0) -> Iterator[tuple[int, ...]]:
    """How many requests of each size add up to exactly `gap` (at most `free[i]` of `sizes[i]`)."""
    if i == len(sizes):
        if gap == 0:
            yield ()
        return
    for count in range(min(free[i], gap // sizes[i]), -1, -1):
        for rest in _compositions(gap - count * sizes[i], sizes, free, i + 1):
            yield (count, *rest)


def _plan(gaps: list[int], unknown: list[_Record], room_at_end: int, want_accepted: int | None,
          want_rejected: int | None) -> list[list[_Record]] | None:
    """The undecided requests that fill each gap exactly (one group per gap, in order), or None.

    A handful of undecided requests (the usual case) is planned exactly: dynamic programming over how many
    requests of each seat count are used, layer by layer, keeping every reachable combination; at the end it
    picks one whose numbers agree with the durable status when known (`want_accepted` undecided requests must
    have been accepted, and at least `want_rejected` of the rest rejected, which needs seats > `room_at_end`).
    Many undecided requests are handed out greedily instead.
    """
    if not gaps:
        return []
    if len(gaps) > len(unknown) or sum(gaps) > sum(rec.seats for rec in unknown):
        return None
    by_size: dict[int, list[_Record]] = {}
    for rec in unknown:
        by_size.setdefault(rec.seats, []).append(rec)
    sizes = sorted(by_size)
    counts = [len(by_size[size]) for size in sizes]
    if len(unknown) > PLAN_UNKNOWNS or math.prod(n + 1 for n in counts) > PLAN_STATES:
        pool = _Pool(unknown)
        groups = []
        for gap in gaps:
            taken = pool.take(gap)
            if taken is None:
                return None
            groups.append(taken)
        return groups
    frontier: list[tuple[int, ...]] = [tuple(0 for _ in sizes)]
    back: list[dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]]] = []
    for gap in gaps:
        layer: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        for used in frontier:
            for composition in _compositions(gap, sizes, [n - u for n, u in zip(counts, used, strict=True)]):
                layer.setdefault(tuple(u + c for u, c in zip(used, composition, strict=True)), (used, composition))
        if not layer:
            return None
        back.append(layer)
        frontier = list(layer)

    def score(used: tuple[int, ...]) -> tuple[bool, int]:
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


def _fill(pool: _Pool, lo: int, hi: int, points: list[int]) -> list[tuple[_Record, int, int]] | None:
    """Undecided requests taking the counter from lo to hi through `points`, greedily; None if they cannot."""
    made: list[tuple[_Record, int, int]] = []
    at = lo
    for target in [*points, hi]:
        taken = pool.take(target - at)
        if taken is None:
            pool.give_back([rec for rec, _, _ in made])
            return None
        for rec in taken:
            made.append((rec, at, at + rec.seats))
            at += rec.seats
    return made


def _diagnose(holes: list[tuple[int, int, int, str | None, _Record | None]], rejected_states: list[int],
              pool: _Pool, problems: _Problems, fillers: dict[int, list[tuple[_Record, int, int]]],
              applied: list[_Record], end: int) -> int:
    """No filling explains every hole: fill them one by one, report the holes that stay open, return the end."""
    for position, lo, hi, left_by, rec in holes:
        points = rejected_states[bisect_right(rejected_states, lo):bisect_left(rejected_states, hi)]
        if rec is not None:  # between two accepted answers: must be filled
            made = _fill(pool, lo, hi, points) or _fill(pool, lo, hi, [])
            if made is None:
                left = (Message("left_start", {"lo": lo}) if left_by is None else
                        Message("left_by", {"by": left_by, "lo": lo}))
                problems.add(1, lo, "gap_undecided" if pool.seen else "gap", lo=lo, hi=hi, left=left,
                             rid=rec.request_id, reserved=rec.reserved)
                continue
            fillers.setdefault(position, []).extend(made)
            applied.extend(r for r, _, _ in made)
        else:  # the climb at the end: as far as it goes (the rejection and status checks report the rest)
            at = lo
            for point in [*points, hi]:
                made = _fill(pool, at, point, [])
                if made is None:
                    break
                fillers.setdefault(position, []).extend(made)
                applied.extend(r for r, _, _ in made)
                at = point
            end = at
    return end


def explain(result: CheckResult, limit: int = 12, language: str = "en") -> str:
    """A few sentences in `language` (de, pt, es, en; English if unknown): the serial order that explains the
    answers, or the first contradiction and up to `limit` more."""
    if not result.ok:
        messages = result.problem_messages  # rendered only as far as `limit` shows them
        first, more = (describe(messages[0], language), messages[1:]) if messages else (
            result.problem, result.problems[1:])
        lines = [describe(Message("explain_failed", {"problem": first}), language)]
        if more:
            lines.append(describe(Message("explain_more", {"n": len(more)}), language))
            lines.extend(f"  - {describe(p, language) if isinstance(p, Message) else p}" for p in more[:limit])
            if len(more) > limit:
                lines.append("  " + describe(Message("explain_and_more", {"n": len(more) - limit}), language))
        return "\n".join(lines)
    undecided: Message | str = ""
    if result.unknown:
        undecided = plural("explain_undecided", len(result.unknown), applied=len(result.applied_unknown))
    summary = Message("explain_ok", {
        "start": result.start, "end": result.end, "capacity": result.capacity, "undecided": undecided,
        "accepted": plural("explain_accepted", result.accepted),
        "rejected": plural("explain_rejected", result.rejected)})
    lines = [describe(summary, language)]
    if result.steps:
        described = []
        at = result.start
        undecided_mark = describe(Message("explain_undecided_mark", {}), language)
        for step in result.steps[:limit]:
            mark = undecided_mark if step.unknown else ""
            if step.status == "accepted":
                described.append(f"{step.request_id} {at}→{step.reserved}{mark}")
                at = step.reserved
            else:
                described.append(describe(Message("explain_step_rejected", {
                    "rid": step.request_id, "reserved": step.reserved, "mark": mark}), language))
        tail = (describe(Message("explain_order_tail", {"n": len(result.steps) - limit}), language)
                if len(result.steps) > limit else "")
        lines.append(describe(Message("explain_order", {"steps": ", ".join(described), "tail": tail}), language))
    return "\n".join(lines)
