"""Histories with cancellations: a search for a serial order, since the counter no longer only climbs.

The chain checker (`check_history`) needs no search because accepted reservations only move the counter up. A
cancellation (`DELETE /workshops/<name>/reservations/<requestId>`, issue 29's first new exercise) moves it down, so
two answers may show the same `reserved` and the order is no longer read off the values. This module checks such
histories the way Wing & Gong's algorithm and porcupine do: depth first over the requests not yet placed, each
placed request applied to a sequential model of one workshop, with a cache of (requests placed, model state) so
that no state is explored twice. The histories it is for are the grader's: a few rounds of at most a few dozen
requests.

The model (`Workshop`), one request at a time:
* reserve(requestId, seats): a requestId decided before answers its first decision again (`replayed: true`; its
  seats, status and `reserved`), also after a cancellation; else accepted while the seats fit (the counter moves
  up), rejected otherwise (the counter stays);
* cancel(requestId): an accepted, not yet cancelled reservation is cancelled: its seats are freed once (the
  counter moves down; `status: "cancelled"`, `reserved` after the cancel); a cancelled one answers its first cancel
  again (`replayed: true`) and frees nothing; an unknown requestId answers 404 and a rejected one 409, changing
  nothing.

With a limit per person (`per_person`, the exercises' person limit), a reservation is also rejected when the seats
its person already holds in the workshop (accepted, not cancelled) plus its own would pass the limit.

A round's requests are concurrent (any order among them); rounds follow each other. An undecided request (no
answer: a transport error, a 5xx) may have taken effect or not. `after`, the durable status at the end, must equal
the model's (`reserved`, the accepted, rejected and cancelled requests, `acceptedSeats == reserved`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from reservation_lab.domain.checker.history import HTTP_FOR
from reservation_lab.i18n import Message, plural

RESERVE, CANCEL = "reserve", "cancel"
CANCELLED = "cancelled"
NOT_FOUND, NOT_ACCEPTED = 404, 409  # a cancel of an unknown requestId, of a rejected one
COMPARED = ("code", "status", "reserved", "replayed", "seats")  # the fields of an answer the model must repeat


class Request(NamedTuple):
    """One request of a history and what it got back (`answer` None: undecided)."""

    kind: str  # RESERVE or CANCEL
    request_id: str
    seats: int = 0  # a reservation's seats (a cancel frees what its reservation holds)
    answer: Mapping[str, Any] | None = None  # code, status, reserved, replayed, seats
    person: str = ""  # who reserves (only a limit per person reads it)


class Record(NamedTuple):
    seats: int
    status: str  # accepted or rejected
    reserved: int  # the counter after the decision
    cancelled_at: int | None = None  # the counter after its cancel, once cancelled
    person: str = ""


class Workshop(NamedTuple):
    """The sequential model's state: hashable, so the search can cache it."""

    capacity: int
    reserved: int
    records: tuple[tuple[str, Record], ...] = ()
    per_person: int | None = None  # the most seats one person may hold (None: no limit)

    def record(self, request_id: str) -> Record | None:
        return next((rec for rid, rec in self.records if rid == request_id), None)

    def with_record(self, request_id: str, rec: Record, reserved: int) -> Workshop:
        others = tuple((rid, r) for rid, r in self.records if rid != request_id)
        return self._replace(reserved=reserved, records=tuple(sorted((*others, (request_id, rec)))))

    def held_by(self, person: str) -> int:
        """The seats `person` holds: accepted and not cancelled."""
        return sum(rec.seats for _, rec in self.records
                   if rec.person == person and rec.status == "accepted" and rec.cancelled_at is None)

    def fits(self, request: Request) -> bool:
        """The seats fit the workshop, and the person's limit when there is one."""
        return self.reserved + request.seats <= self.capacity and (
            self.per_person is None or self.held_by(request.person) + request.seats <= self.per_person)

    def status(self) -> dict[str, int]:
        recs = [rec for _, rec in self.records]
        held = [rec for rec in recs if rec.status == "accepted" and rec.cancelled_at is None]
        return {"capacity": self.capacity, "reserved": self.reserved,
                "acceptedRequests": sum(rec.status == "accepted" for rec in recs),
                "rejectedRequests": sum(rec.status == "rejected" for rec in recs),
                "cancelledRequests": sum(rec.cancelled_at is not None for rec in recs),
                "acceptedSeats": sum(rec.seats for rec in held)}


def apply(state: Workshop, request: Request) -> tuple[Workshop, dict[str, Any]]:
    """The model's answer to one request and its state after it."""
    rec = state.record(request.request_id)
    if request.kind == RESERVE:
        if rec is not None:
            return state, {"code": HTTP_FOR[rec.status], "status": rec.status,
                           "reserved": rec.reserved, "replayed": True, "seats": rec.seats}
        fits = state.fits(request)
        reserved = state.reserved + request.seats if fits else state.reserved
        status = "accepted" if fits else "rejected"
        answer = {"code": HTTP_FOR[status], "status": status, "reserved": reserved, "replayed": False,
                  "seats": request.seats}
        record = Record(request.seats, status, reserved, person=request.person)
        return state.with_record(request.request_id, record, reserved), answer
    if rec is None:
        return state, {"code": NOT_FOUND}
    if rec.status != "accepted":
        return state, {"code": NOT_ACCEPTED}
    if rec.cancelled_at is not None:
        return state, {"code": 200, "status": CANCELLED, "reserved": rec.cancelled_at, "replayed": True,
                       "seats": rec.seats}
    reserved = state.reserved - rec.seats
    answer = {"code": 200, "status": CANCELLED, "reserved": reserved, "replayed": False, "seats": rec.seats}
    return state.with_record(request.request_id, rec._replace(cancelled_at=reserved), reserved), answer


def explains(model: Mapping[str, Any], seen: Mapping[str, Any]) -> bool:
    """The answer seen is the model's: every compared field the model gives (an error answer: its code only)."""
    return all(seen.get(name) == model[name] for name in COMPARED if name in model)


@dataclass
class SearchResult:
    """The verdict: `order` (requestIds with their kind, in a serial order that explains everything) when `ok`."""

    ok: bool
    order: list[tuple[str, str]] = field(default_factory=list)
    problem: Message | None = None
    dead_ends: int = 0  # (requests placed, state) pairs the search found no way on from


class _Search:
    def __init__(self, rounds: Sequence[Sequence[Request]], after: Mapping[str, Any] | None) -> None:
        self.rounds = [list(round_) for round_ in rounds]
        self.after = after
        self.failed: set[tuple[int, frozenset[int], Workshop]] = set()
        self.deepest: tuple[int, int, Request | None] = (-1, -1, None)  # (round, placed, first answered left)
        self.complete = False

    def run(self, index: int, left: frozenset[int], state: Workshop, order: list[tuple[str, str]]) -> bool:
        if not left:
            if index + 1 < len(self.rounds):
                return self.run(index + 1, frozenset(range(len(self.rounds[index + 1]))), state, order)
            self.complete = True  # every answer explained; only the durable status may disagree
            status = state.status()
            return self.after is None or all(status[k] == self.after[k] for k in status if k in self.after)
        key = (index, left, state)
        if key in self.failed:
            return False
        placed = len(self.rounds[index]) - len(left)
        if (index, placed) > self.deepest[:2]:
            answered = next((self.rounds[index][i] for i in sorted(left) if self.rounds[index][i].answer), None)
            if answered is not None:
                self.deepest = (index, placed, answered)
        for position in sorted(left):
            request = self.rounds[index][position]
            after, answer = apply(state, request)
            if request.answer is None or explains(answer, request.answer):
                order.append((request.kind, request.request_id))
                if self.run(index, left - {position}, after, order):
                    return True
                order.pop()
            if request.answer is None and self.run(index, left - {position}, state, order):
                return True  # undecided: it may never have taken effect
        self.failed.add(key)
        return False


def check_with_cancels(rounds: Sequence[Sequence[Request]], before: Mapping[str, Any],
                       after: Mapping[str, Any] | None = None, per_person: int | None = None) -> SearchResult:
    """Is there one serial order of the requests (round after round) that explains every answer and `after`?

    `before`: the status before the first round (`capacity`, `reserved`; no earlier requestIds); `per_person`: the
    most seats one person may hold (None: no limit). When no order exists, `problem` names the first single answer
    no state can give, else the first request the deepest partial order could not place.
    """
    start = Workshop(int(before["capacity"]), int(before["reserved"]), per_person=per_person)
    impossible = (_impossible_answer(rounds, start.capacity) or _over_the_limit(rounds, per_person)
                  or _cancel_of_a_rejected(rounds) or _rejected_within_limit(rounds, start.capacity, per_person))
    if impossible is not None:
        return SearchResult(False, problem=impossible)
    search = _Search(rounds, after)
    order: list[tuple[str, str]] = []
    if not rounds or search.run(0, frozenset(range(len(rounds[0]))), start, order):
        return SearchResult(True, order=order, dead_ends=len(search.failed))
    _, _, stuck = search.deepest
    if search.complete or stuck is None:
        problem = Message("checker.no_order_durable", {})
    else:
        kind = Message("checker.kind_cancel" if stuck.kind == CANCEL else "checker.kind_reserve", {})
        problem = Message("checker.no_order_for", {"kind": kind,
                                                   "rid": stuck.request_id, "answer": _shown(stuck.answer)})
    return SearchResult(False, problem=problem, dead_ends=len(search.failed))


def _impossible_answer(rounds: Sequence[Sequence[Request]], capacity: int) -> Message | None:
    """An answer that no state of the model gives: a counter outside 0..capacity, a second first decision or a
    second first cancel of one requestId."""
    firsts: dict[tuple[str, str], int] = {}
    for request in (r for round_ in rounds for r in round_):
        seen = request.answer
        if seen is None or "reserved" not in seen:
            continue
        if not 0 <= seen["reserved"] <= capacity:
            return Message("checker.counter_out_of_range", {"rid": request.request_id, "reserved": seen["reserved"],
                                                            "capacity": capacity})
        if not seen.get("replayed"):
            key = (request.kind, request.request_id)
            firsts[key] = firsts.get(key, 0) + 1
            if firsts[key] == 2:
                template = "checker.cancelled_twice" if request.kind == CANCEL else "checker.decided_again"
                return Message(template, {"rid": request.request_id})
    return None


def _over_the_limit(rounds: Sequence[Sequence[Request]], per_person: int | None) -> Message | None:
    """Without cancellations a person's accepted seats only grow: when the first decisions accepted for one person
    add up to more than `per_person`, no order explains them (the reason a learner can act on, where the search
    could only name a request it could not place)."""
    requests = [r for round_ in rounds for r in round_]
    if per_person is None or any(r.kind == CANCEL for r in requests):
        return None
    held: dict[str, dict[str, int]] = {}
    for request in requests:
        seen = request.answer
        if request.kind == RESERVE and seen and seen.get("status") == "accepted" and not seen.get("replayed"):
            held.setdefault(request.person, {}).setdefault(request.request_id, request.seats)
    for person, seats in held.items():
        if sum(seats.values()) > per_person:
            return Message("checker.over_person_limit", {"person": person, "seats": sum(seats.values()),
                                                         "rids": ", ".join(seats), "limit": per_person})
    return None


def _cancel_of_a_rejected(rounds: Sequence[Sequence[Request]]) -> Message | None:
    """A cancel answered 200 for a requestId whose every reserve was answered and none accepted: a rejected
    reservation holds no seats, so no state frees them (the request to name, where the search could only name the
    first one it could not place)."""
    requests = [r for round_ in rounds for r in round_]
    reserves: dict[str, list[Request]] = {}
    for request in requests:
        if request.kind == RESERVE:
            reserves.setdefault(request.request_id, []).append(request)
    for request in requests:
        mine = reserves.get(request.request_id, [])
        if (request.kind == CANCEL and request.answer and request.answer.get("code") == 200 and mine
                and all(r.answer and r.answer.get("status") == "rejected" for r in mine)):
            return Message("checker.cancel_of_rejected", {"rid": request.request_id})
    return None


def _rejected_within_limit(rounds: Sequence[Sequence[Request]], capacity: int,
                           per_person: int | None) -> Message | None:
    """A reservation rejected although it fitted the workshop (its own answer's counter plus its seats) and its
    person could not have held more than the limit allows with it: the most they could hold is every other
    reservation of theirs that was accepted or got no answer (a rejected one holds nothing; a cancel only frees)."""
    if per_person is None:
        return None
    requests = [r for round_ in rounds for r in round_ if r.kind == RESERVE]
    for request in requests:
        seen = request.answer
        if (not seen or seen.get("status") != "rejected" or seen.get("replayed")
                or type(seen.get("reserved")) is not int or seen["reserved"] + request.seats > capacity):
            continue
        could_hold: dict[str, int] = {}  # per requestId the most seats it can hold (a replay's seats may differ)
        for other in requests:
            if (other.person == request.person and other.request_id != request.request_id
                    and (other.answer is None or other.answer.get("status") == "accepted")):
                seats = (other.answer or {}).get("seats", other.seats)
                could_hold[other.request_id] = max(could_hold.get(other.request_id, 0), int(seats))
        held = sum(could_hold.values())
        if held + request.seats <= per_person:
            return Message("checker.rejected_within_limit", {
                "rid": request.request_id, "person": request.person, "seats": plural("checker.seats", request.seats),
                "reserved": seen["reserved"], "held": held, "limit": per_person})
    return None


def _shown(answer: Mapping[str, Any]) -> str:
    return ", ".join(f"HTTP {answer[name]}" if name == "code" else f"{name}={json.dumps(answer[name])}"  # as sent
                     for name in COMPARED if name in answer)
