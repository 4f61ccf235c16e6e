"""The responses of a burst, normalised into records and sorted into decisions, replays and undecided answers.

The checks on single answers (the first phase of the problems) happen here: an HTTP code that contradicts the
status, a missing `reserved`, a foreign capacity, a requestId decided twice or decided again after `prior`, and a
replay that repeats a different decision.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from reservation_lab.domain.checker.verdict import ANSWERS, Problems
from reservation_lab.domain.decisions import Decision
from reservation_lab.errors import LabError
from reservation_lab.i18n import Message, plural, quoted

DECIDED = ("accepted", "rejected")
HTTP_FOR = {"accepted": 201, "rejected": 409}

Response = Decision | Mapping[str, Any]


@dataclass(slots=True, eq=False)
class Record:
    """One response, normalised from a `Decision` or a response body dict."""

    request_id: str
    seats: int
    status: str | None  # None: undecided (a transport error, a 5xx, no status)
    reserved: Any
    replayed: bool
    capacity: Any
    index: int  # its position in the input
    http: int | None  # the HTTP status code, for Decisions


def record(response: Response, index: int) -> Record:
    """The response as a Record; LabError if it names no request or no positive seat count."""
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
        raise LabError("errors.response_type", index=index, kind=type(response).__name__)
    if not isinstance(request_id, str):
        raise LabError("errors.response_no_id", index=index, response=quoted(response))
    if type(seats) is not int or seats < 1:
        raise LabError("errors.response_seats", rid=request_id, seats=quoted(seats))
    if status not in DECIDED:
        status = None
    return Record(request_id, seats, status, body.get("reserved"), body.get("replayed") is True,
                  body.get("capacity"), index, http)


def decision(rec: Record) -> Message:
    """The decision a record reports, for problem texts."""
    return Message("checker.decision", {"status": Message(f"checker.status_{rec.status}", {}), "reserved": rec.reserved,
                                "seats": plural("checker.seats", rec.seats)})


def _same(a: Record, b: Record) -> bool:
    return a.status == b.status and a.reserved == b.reserved and a.seats == b.seats


@dataclass
class History:
    """The decisions of this burst, sorted for the chain."""

    accepted: list[Record]  # by reserved; ties keep the input order (first decisions, then orphan replays)
    rejected: list[Record]
    rejected_states: list[int]  # the distinct `reserved` values the rejections saw, ascending
    unknown: list[Record]  # undecided requests, with no decision anywhere in the history or in prior


def read_history(responses: Iterable[Response], prior: Iterable[Response] | None, capacity: int,
                 problems: Problems) -> History:
    """Sort the responses into this burst's decisions and undecided requests, recording broken answers."""
    prior_map: dict[str, Record] = {}
    for i, response in enumerate(prior or ()):
        rec = record(response, i)
        if rec.status is not None:
            prior_map.setdefault(rec.request_id, rec)
    first, replays, undecided = _first_decisions(responses, prior_map, capacity, problems)
    orphans = _orphan_replays(replays, first, prior_map, problems)
    effective = list(first.values()) + list(orphans.values())
    unknown = [rec for rid, rec in undecided.items()
               if rid not in first and rid not in orphans and rid not in prior_map]
    accepted = sorted((rec for rec in effective if rec.status == "accepted"), key=attrgetter("reserved"))
    rejected = [rec for rec in effective if rec.status == "rejected"]
    return History(accepted, rejected, sorted({rec.reserved for rec in rejected}), unknown)


def _first_decisions(responses: Iterable[Response], prior_map: dict[str, Record], capacity: int,
                     problems: Problems) -> tuple[dict[str, Record], list[Record], dict[str, Record]]:
    """Each requestId's first decision (not a replay) in this history, the replays, and the undecided answers."""
    first: dict[str, Record] = {}
    replays: list[Record] = []
    undecided: dict[str, Record] = {}
    for index, response in enumerate(responses):
        rec = record(response, index)
        rid, status = rec.request_id, rec.status
        if status is None:
            undecided.setdefault(rid, rec)
            continue
        if rec.http is not None and rec.http != HTTP_FOR[status]:
            problems.add(ANSWERS, index, "http_mismatch", rid=rid, http=rec.http, status=quoted(status))
        if type(rec.reserved) is not int:
            problems.add(ANSWERS, index, "invalid_reserved", rid=rid, status=Message(f"checker.status_{status}", {}),
                         reserved=quoted(rec.reserved))
            continue
        if rec.capacity is not None and rec.capacity != capacity:
            problems.add(ANSWERS, index, "capacity_mismatch", rid=rid, answered=rec.capacity, capacity=capacity)
        if rec.replayed:
            replays.append(rec)
            continue
        earlier = prior_map.get(rid)
        if earlier is not None:
            problems.add(ANSWERS, index, "decided_before_burst", rid=rid, earlier=decision(earlier),
                         again=decision(rec))
            continue
        seen = first.setdefault(rid, rec)
        if seen is not rec:  # the same decision again is a replay that does not say so; another one, two decisions
            key = "unmarked_replay" if _same(seen, rec) else "decided_twice"
            problems.add(ANSWERS, index, key, rid=rid, first=decision(seen), then=decision(rec))
    return first, replays, undecided


def _orphan_replays(replays: list[Record], first: dict[str, Record], prior_map: dict[str, Record],
                    problems: Problems) -> dict[str, Record]:
    """Check each replay against its original; replays whose first answer is missing are this burst's decision."""
    orphans: dict[str, Record] = {}
    for rec in replays:
        rid = rec.request_id
        original = first.get(rid) or prior_map.get(rid)
        if original is None:
            original = orphans.setdefault(rid, rec)
            if original is rec:
                continue
        if not _same(rec, original):
            problems.add(ANSWERS, rec.index, "bad_replay", rid=rid, replay=decision(rec),
                         original=decision(original))
    return orphans
