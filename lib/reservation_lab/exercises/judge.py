"""One workload against a running Worker: send each round at once, then judge it.

After every round each workshop's answers are judged by the serial-order checker against its durable status
(before and after the round, with the earlier rounds' answers as `prior`); a valid request must get 201/409, an
invalid one 400; after a restart every durable status must be what it was before. A workload with cancellations
(DELETE of one reservation: 200, or 404/409 for an unknown or rejected requestId) is judged by the search checker
instead, over every round so far: the counter can go down, so only a serial order of all of them explains it. A
request whose external check the grader failed must be answered 503 check_failed and change nothing. The first
thing that does not hold is the trial's `Failure`, with a failure class the learner can act on.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import httpx

from reservation_lab.domain.checker import CheckResult, check_history
from reservation_lab.domain.checker.search import (
    CANCEL,
    CANCELLED,
    COMPARED,
    NOT_ACCEPTED,
    NOT_FOUND,
    RESERVE,
    check_with_cancels,
)
from reservation_lab.domain.checker.search import Request as Decided
from reservation_lab.domain.routes import reservation_path, reservations_path, status_path
from reservation_lab.exercises.external_check import ExternalCheck
from reservation_lab.exercises.workloads import (
    CANCEL_KINDS,
    CHECK_FAILS,
    INVALID_BODIES,
    PER_PERSON,
    TWIN_KINDS,
    Workload,
)
from reservation_lab.i18n import Message, quoted

REQUEST_TIMEOUT = 15.0  # seconds: a Worker that does not answer within it has hung (5 s graded correct Workers as
# crashed on a loaded 2-core machine: the suite's three workers, or a class grading at once on one hub)
STATUS_ATTEMPTS = 2  # a status read (a GET) without an answer in time is asked once more before it counts
CLASS_OF_PROBLEM = {  # the checker's problem keys -> the failure class an exercise is about
    "overbooking": "overbooking", "after_capacity": "overbooking",
    "same_reserved": "lost_update", "overlap": "lost_update", "after_lost_write": "lost_update",
    "after_unexplained": "lost_update", "below_start": "lost_update",
    "decided_twice": "double_spend", "unmarked_replay": "double_spend", "decided_before_burst": "double_spend",
    "bad_replay": "double_spend",
    "false_rejection": "false_rejection",
}
CANCEL_CODES = (200, NOT_FOUND, NOT_ACCEPTED)  # cancelled (or its replay), unknown, not an accepted reservation


@dataclass
class Sent:
    """One HTTP request of a trial and the Worker's answer (`code` None: no answer within REQUEST_TIMEOUT)."""

    round: int
    workshop: str
    request_id: str
    seats: int
    kind: str
    body: str
    code: int | None = None
    answer: dict[str, Any] = field(default_factory=dict)
    person: str = ""  # who reserves (the person exercise's workloads)

    @property
    def valid(self) -> bool:
        return self.kind != "invalid"

    @property
    def cancels(self) -> bool:
        return self.kind == "cancel"

    def decided(self) -> Decided:
        """The request and its answer as the search checker reads them (no answer: undecided)."""
        answer = None if self.code is None else {
            "code": self.code, **{key: self.answer[key] for key in COMPARED if key in self.answer and key != "code"}}
        return Decided(CANCEL if self.cancels else RESERVE, self.request_id, self.seats, answer, self.person)

    def response(self) -> dict[str, Any]:
        """The answer as the checker reads it (the requestId and seats sent, when the body lacks them)."""
        return {"requestId": self.request_id, "seats": self.seats, **self.answer}


@dataclass
class Failure:
    """What went wrong first: its class, a sentence (catalog message) and, for a contradiction, the checker's
    verdict on the round's answers in that workshop."""

    kind: str
    message: Message
    round: int
    check: CheckResult | None = None
    why: Message | None = None  # the search checker's sentence, for a workload with cancellations


@dataclass
class Trial:
    workload: Workload
    sent: list[Sent] = field(default_factory=list)
    failure: Failure | None = None

    @property
    def requests(self) -> int:
        return len(self.sent)


def requests_of(workload: Workload, prefix: str) -> list[list[Sent]]:
    """The workload's rounds as HTTP requests: requestIds given, replays pointed at an earlier requestId of the
    same workshop (none yet: a new one) with the seats the workload drew (often not the first request's: a Worker
    that keys its replays by requestId and seats books twice), twins sent twice, invalid bodies filled in; a cancel
    names an earlier round's requestId of its workshop (none yet: one never sent), twin cancels are sent twice."""
    earlier: dict[str, list[Sent]] = {}
    rounds: list[list[Sent]] = []
    for number, round_ in enumerate(workload.rounds, 1):
        sent: list[Sent] = []
        for index, request in enumerate(round_.requests, 1):
            workshop, rid = f"{prefix}-{request.workshop}", f"r{number}-{index}"
            kind = request.kind
            if kind in CANCEL_KINDS:
                known = earlier.get(workshop, [])
                rid = known[request.ref % len(known)].request_id if known else rid
                sent.extend(Sent(number, workshop, rid, 0, "cancel", "") for _ in range(1 + (kind in TWIN_KINDS)))
                continue
            if kind == "invalid":
                body = INVALID_BODIES[request.ref % len(INVALID_BODIES)].replace("{rid}", rid)
                sent.append(Sent(number, workshop, rid, request.seats, kind, body))
                continue
            known = earlier.get(workshop, [])
            if kind == "replay" and known:
                first = known[request.ref % len(known)]
                rid, seats = first.request_id, request.seats  # other seats, too: the first decision stands
            else:
                kind, seats = (kind if kind in ("twins", CHECK_FAILS) else "new"), request.seats
            person = f"p{request.person}" if workload.persons else ""
            body = json.dumps({"requestId": rid, "seats": seats, **({"person": person} if person else {})})
            sent.extend(Sent(number, workshop, rid, seats, kind, body, person=person)
                                for _ in range(1 + (kind in TWIN_KINDS)))
        for one in sent:
            if one.kind in ("new", "twins", CHECK_FAILS) and one not in earlier.get(one.workshop, []):
                earlier.setdefault(one.workshop, []).append(one)
        rounds.append(sent)
    return rounds


async def _send(client: httpx.AsyncClient, one: Sent) -> None:
    try:
        if one.cancels:
            response = await client.delete(reservation_path(one.workshop, one.request_id))
        else:
            response = await client.post(reservations_path(one.workshop), content=one.body,
                                         headers={"content-type": "application/json"})
    except httpx.HTTPError:
        return
    one.code = response.status_code
    try:
        answer = response.json()
    except ValueError:
        answer = {"text": response.text[:200]}
    one.answer = answer if isinstance(answer, dict) else {"json": answer}


@cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client of the grader (plain http on loopback needs none, but httpx builds one
    per client otherwise: 25 ms each)."""
    return ssl.create_default_context()


async def _send_round(base_url: str, sent: list[Sent]) -> None:
    limits = httpx.Limits(max_connections=len(sent) + 2)
    async with httpx.AsyncClient(base_url=base_url, timeout=REQUEST_TIMEOUT, limits=limits, trust_env=False,
                                 verify=tls_context()) as client:
        await asyncio.gather(*(_send(client, one) for one in sent))


def run_to_completion(make: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run a coroutine from the grader's synchronous search: directly, or in a thread of its own when this thread
    already runs an event loop (a notebook kernel, where asyncio.run refuses)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(make())
        return
    with ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: asyncio.run(make())).result()


def read_statuses(base_url: str, workshops: list[str]) -> dict[str, dict[str, Any]] | Failure:
    """Each workshop's durable status. A read is a GET that changes nothing, so one that gets no answer within
    REQUEST_TIMEOUT is asked once more (a busy machine, not the Worker, can be slow once); no readable answer
    twice is a crash of the Worker."""
    found: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT, trust_env=False, verify=tls_context()) as client:
        for workshop in workshops:
            status = _status(client, workshop)
            if status is None:
                return Failure("crash", Message("exercises.status_unreadable", {"workshop": workshop}), 0)
            found[workshop] = status
    return found


def _answers_failure(sent: list[Sent], number: int) -> Failure | None:
    """A valid request without 201/409 and a JSON status, a cancel without 200 (status cancelled), 404 or 409, or
    an invalid request without 400."""
    for one in sent:
        if one.cancels:
            if one.code is None or one.code not in CANCEL_CODES or (
                    one.code == 200 and one.answer.get("status") != CANCELLED):
                key = "exercises.no_answer" if one.code is None else "exercises.no_cancel_decision"
                return Failure("crash", Message(key, {"rid": one.request_id, "code": one.code,
                                                      "seconds": REQUEST_TIMEOUT}), number)
            continue
        if one.code is None or (one.valid and (one.code not in (201, 409)
                                               or one.answer.get("status") not in ("accepted", "rejected"))):
            key = "exercises.no_answer" if one.code is None else "exercises.no_decision"
            return Failure("crash", Message(key, {"rid": one.request_id, "code": one.code,
                                                  "seconds": REQUEST_TIMEOUT}), number)
        if not one.valid and one.code != 400:
            return Failure("bad_input", Message("exercises.invalid_not_refused",
                                                {"body": quoted(one.body), "code": one.code}), number)
    return None


def accepted_beyond_capacity(answers: list[dict[str, Any]], before: dict[str, Any],
                             prior: list[dict[str, Any]]) -> bool:
    """More seats accepted than were free: the reserved counter before the round plus the seats of this round's
    accepted new requests (a requestId neither answered before nor counted twice) exceeds the capacity. A Worker
    that clamps its counter shows this as repeated counter values too; overbooking is what the learner must see."""
    seen = {answer.get("requestId") for answer in prior}
    seats = 0
    for answer in answers:
        rid = answer.get("requestId")
        if answer.get("status") == "accepted" and not answer.get("replayed") and rid not in seen:
            seen.add(rid)
            seats += answer.get("seats") if type(answer.get("seats")) is int else 0
    reserved, capacity = before.get("reserved"), before.get("capacity")
    return type(reserved) is int and type(capacity) is int and reserved + seats > capacity


def _contradiction(check: CheckResult, workshop: str, number: int) -> Failure:
    keys = [message.key.removeprefix("checker.") for message in check.problem_messages]
    kind = next((CLASS_OF_PROBLEM[key] for key in keys if key in CLASS_OF_PROBLEM), "contradiction")
    return Failure(kind, Message(f"exercises.class_{kind}", {"workshop": workshop}), number, check)


def _status(client: httpx.Client, workshop: str, attempts: int = STATUS_ATTEMPTS) -> dict[str, Any] | None:
    for _ in range(attempts):
        try:
            response = client.get(status_path(workshop))
        except httpx.TimeoutException:
            continue
        except httpx.HTTPError:
            return None
        try:
            return response.json() if response.status_code == 200 else None
        except ValueError:
            return None
    return None


def run_trial(workload: Workload, base_url: str, prefix: str, restart: Callable[[], str],
              cancels: bool = False, check: ExternalCheck | None = None) -> Trial:
    """Send the workload's rounds to `base_url` (workshops `<prefix>-<n>`), judge each; `restart()` restarts the
    server on the same state and returns its new base URL. `cancels`: the Worker takes cancellations (every
    workload of its exercise is judged by the search checker, also one that shrank to no cancel). `check`: the
    service the Worker's external check calls; each round, the first check of its `check_fails` requests fails."""
    trial = Trial(workload)
    workshops = [f"{prefix}-{n}" for n in range(max(r.workshop for rd in workload.rounds for r in rd.requests) + 1)]
    before = read_statuses(base_url, workshops)
    if isinstance(before, Failure):
        trial.failure = before
        return trial
    prior: dict[str, list[dict[str, Any]]] = {w: [] for w in workshops}
    start, per_person = before, PER_PERSON if workload.persons else None
    searched = cancels or per_person is not None
    for number, (round_, sent) in enumerate(zip(workload.rounds, requests_of(workload, prefix), strict=True), 1):
        if check is not None:
            check.fail_first({one.request_id for one in sent if one.kind == CHECK_FAILS})
        run_to_completion(partial(_send_round, base_url, sent))
        trial.sent.extend(sent)
        failed = check.take_failed() if check is not None else set()
        if searched:
            failure, after = _judge_rounds(base_url, workshops, trial.sent, number, start, cancels, per_person)
        else:
            failure, after = _judge_round(base_url, workshops, sent, number, before, prior, failed)
        if failure is None and round_.restart:
            base_url = restart()
            failure = _judge_restart(base_url, workshops, after, number)
        if failure is not None:
            failure.round = failure.round or number
            trial.failure = failure
            return trial
        before = after
    return trial


def _judge_round(base_url: str, workshops: list[str], sent: list[Sent], number: int,
                 before: dict[str, dict[str, Any]], prior: dict[str, list[dict[str, Any]]],
                 failed: set[str] | frozenset[str] = frozenset()) -> tuple[Failure | None, dict[str, dict[str, Any]]]:
    """One round, judged by the serial-order checker; a request whose external check failed (`failed`) must be
    answered 503 check_failed and change nothing: it is left out of the history (a later replay is its retry)."""
    unchecked = [one for one in sent if one.request_id in failed and one.valid]
    decided = [one for one in sent if one not in unchecked]
    failure = _unchecked_failure(unchecked, number) or _answers_failure(decided, number)
    after = read_statuses(base_url, workshops)
    if isinstance(after, Failure):
        return failure or after, before
    if failure is not None:
        return failure, after
    for workshop in workshops:
        answers = [one.response() for one in decided if one.valid and one.workshop == workshop]
        if any(one.workshop == workshop for one in unchecked) and _spent_unchecked(answers, before[workshop],
                                                                                   after[workshop]):
            return Failure("failed_check", Message("exercises.class_failed_check", {"workshop": workshop}),
                           number), after
        check = check_history(answers, before[workshop], after[workshop], prior=prior[workshop])
        if not check.ok:
            failure = _contradiction(check, workshop, number)
            if accepted_beyond_capacity(answers, before[workshop], prior[workshop]):  # the headline, whatever else
                failure = Failure("overbooking", Message("exercises.class_overbooking", {"workshop": workshop}),
                                  number, check)
            return failure, after
        prior[workshop].extend(answers)
    return None, after


def _unchecked_failure(unchecked: list[Sent], number: int) -> Failure | None:
    """A request whose external check failed, answered otherwise than 503 check_failed (decided without its check)."""
    for one in unchecked:
        if one.code != 503 or one.answer.get("error") != "check_failed":
            return Failure("failed_check", Message("exercises.class_failed_check_answer", {
                "rid": one.request_id, "code": one.code if one.code is not None else "–"}), number)
    return None


def _spent_unchecked(answers: list[dict[str, Any]], before: dict[str, Any], after: dict[str, Any]) -> bool:
    """More attempts recorded, or more seats taken, than this round's new decisions account for: a request whose
    check failed was recorded or booked anyway. (Counted from the attempt log, so a lost update, which loses seats
    but no attempt, is not mistaken for it.)"""
    def count(status: dict[str, Any], *keys: str) -> int:
        return sum(status.get(key) if type(status.get(key)) is int else 0 for key in keys)

    new = {answer.get("requestId"): answer for answer in answers if answer.get("replayed") is not True}
    accepted_seats = sum(answer.get("seats") if type(answer.get("seats")) is int else 0
                         for answer in new.values() if answer.get("status") == "accepted")
    attempts = count(after, "acceptedRequests", "rejectedRequests") - count(before, "acceptedRequests",
                                                                             "rejectedRequests")
    seats = count(after, "acceptedSeats") - count(before, "acceptedSeats")
    return attempts > len(new) or seats > accepted_seats


def _judge_rounds(base_url: str, workshops: list[str], sent: list[Sent], number: int,
                  start: dict[str, dict[str, Any]], cancels: bool, per_person: int | None
                  ) -> tuple[Failure | None, dict[str, dict[str, Any]]]:
    """Every round so far, with cancellations or a limit per person: one serial order must explain each answer and
    the durable status."""
    failure = _answers_failure([one for one in sent if one.round == number], number)
    after = read_statuses(base_url, workshops)
    if isinstance(after, Failure):
        return failure or after, {}  # no status read: the trial ends here
    if failure is not None:
        return failure, after
    for workshop in workshops:
        rounds = [[one.decided() for one in sent if one.valid and one.workshop == workshop and one.round == n]
                  for n in range(1, number + 1)]
        result = check_with_cancels(rounds, start[workshop], after[workshop], per_person)
        if not result.ok:
            kind = _class_of_search(result.problem, start[workshop]["capacity"], cancels)
            return Failure(kind, Message(f"exercises.class_{kind}", {"workshop": workshop, "limit": per_person}),
                           number, why=result.problem), after
    return None, after


def _class_of_search(problem: Message | None, capacity: int, cancels: bool) -> str:
    """The failure class of the search checker's problem: a second decision of a requestId, overbooking, and
    otherwise what the exercise is about (a wrong cancellation, or the limit per person): with cancels every other
    contradiction (an answer or a durable status no order explains) involves what the cancels did."""
    key = problem.key.removeprefix("checker.") if problem else ""
    values = problem.values if problem else {}
    if key == "decided_again":
        return "double_spend"
    if key == "counter_out_of_range" and values["reserved"] > capacity:
        return "overbooking"
    return "bad_cancel" if cancels else "person_limit"


def _judge_restart(base_url: str, workshops: list[str], before: dict[str, dict[str, Any]],
                   number: int) -> Failure | None:
    after = read_statuses(base_url, workshops)
    if isinstance(after, Failure):
        return after
    for workshop in workshops:
        changed = [f"{key} {before[workshop][key]} → {after[workshop].get(key)}" for key in before[workshop]
                   if after[workshop].get(key) != before[workshop][key]]
        if changed:
            return Failure("reset_on_restart", Message("exercises.class_reset_on_restart", {
                "workshop": workshop, "changes": ", ".join(changed)}), number)
    return None
