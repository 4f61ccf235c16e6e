"""The client exercise: a learner's `reserve(http, workshop, seats)` against the real Worker over a lossy network.

A workload is a few reservations, each with the faults the network does to its first attempts (exercises.lossy) and
the thread it runs on: threads start at the same moment, and a thread's calls run one after the other with one
`http` client (a reserve that remembers earlier calls is seen); hypothesis generates and shrinks them as it does the
Workers' workloads. Judged
end to end, from what reached the Worker (the proxy's log) and its durable status: each reservation reaches the
Worker under one requestId of its own; `reserve` returns a decision for each, and it is the Worker's first decision
for that requestId (a replayed answer is that decision, repeated); it waits before each retry. The first thing
that does not hold is the trial's Failure, with its class.
"""

from __future__ import annotations

import contextvars
import json
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from hypothesis import strategies as st

from reservation_lab.domain.routes import status_path
from reservation_lab.exercises.judge import Failure, read_statuses, tls_context
from reservation_lab.exercises.lossy import CALL_HEADER, ENDLESS, FAULTS, Attempt, LossyNetwork
from reservation_lab.i18n import Message

MAX_CALLS, MAX_FAULTS = 5, 3  # reservations at once; faults in a row for one reservation (the task says 3)
CALL_SECONDS = 30.0  # a reserve() that has not returned by then has hung
CLIENT_TIMEOUT = 5.0  # the given httpx.Client's default timeout (a learner may pass a shorter one per request)
MIN_WAIT = 0.01  # seconds a retry must wait after a failure the client saw (the task says at least 10 ms)
SEEN_FAILURES = ("drop_request", "refuse")  # they end without the Worker: the client sees them end at once (after a
# lost or failed answer it may have given up earlier, on its own timeout, while the Worker was still deciding)
DECISION_FIELDS = ("requestId", "status", "reserved")  # what a returned decision must share with the Worker's first
Reserve = Callable[[httpx.Client, str, int], Any]


@dataclass(frozen=True)
class Call:
    """One reservation: its seats, what the network does to its first attempts (ending in ENDLESS: to every one, so
    no decision can come and raising is the right end), and the thread it runs on."""

    seats: int
    faults: tuple[str, ...] = ()
    thread: int = 0

    @property
    def endless(self) -> bool:
        return bool(self.faults) and self.faults[-1] == ENDLESS


@dataclass(frozen=True)
class ClientWorkload:
    calls: tuple[Call, ...]

    @property
    def size(self) -> int:
        return sum(1 + len(call.faults) for call in self.calls)


LARGE_CALLS = 12  # the grader's `large` search: more reservations at once, more of them on one thread


def _client_workloads(max_calls: int) -> st.SearchStrategy[ClientWorkload]:
    return st.builds(ClientWorkload, calls=st.lists(
        st.builds(Call, seats=st.integers(1, 4),
                  faults=st.lists(st.sampled_from(FAULTS), max_size=MAX_FAULTS).map(tuple),
                  thread=st.integers(0, MAX_CALLS - 1)),  # shrinks to one thread: the calls one after the other
        min_size=1, max_size=max_calls).map(tuple))


client_workloads = _client_workloads(MAX_CALLS)
large_client_workloads = _client_workloads(LARGE_CALLS)


@dataclass
class Outcome:
    """What one call of `reserve` did: its attempts through the network and what it returned or raised."""

    call: int
    seats: int
    attempts: list[Attempt] = field(default_factory=list)
    returned: Any = None
    error: str | None = None  # what it raised (`Type: text`)
    hung: bool = False  # it had not returned after CALL_SECONDS
    header: str = ""  # what its requests carry in CALL_HEADER (the network's token and the call)
    done: bool = False  # reserve returned or raised

    @property
    def request_ids(self) -> list[str]:
        """The requestIds its attempts carried, each once, in the order sent."""
        return list(dict.fromkeys(a.request_id for a in self.attempts if a.request_id is not None))


@dataclass
class ClientTrial:
    workload: ClientWorkload
    outcomes: list[Outcome] = field(default_factory=list)
    failure: Failure | None = None

    @property
    def requests(self) -> int:
        """The HTTP requests that reached the network."""
        return sum(len(outcome.attempts) for outcome in self.outcomes)


def load_reserve(source: str, filename: str = "client.py") -> Reserve:
    """The `reserve` function of the learner's module text, compiled afresh each time (no file, no bytecode cache);
    `filename` is what its tracebacks name."""
    module = types.ModuleType("client")
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)  # noqa: S102 - the learner's own code
    reserve = getattr(module, "reserve", None)
    if not callable(reserve):
        raise AttributeError("reserve")
    return reserve


def shown(value: Any) -> str:
    """A value a reserve returned, for the learner: its decision fields as JSON (or the JSON, or its repr)."""
    if isinstance(value, dict):
        value = {key: value[key] for key in (*DECISION_FIELDS, "replayed") if key in value} or value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def run_client_trial(reserve: Reserve, workload: ClientWorkload, worker_url: str, workshop: str) -> ClientTrial:
    """Call `reserve` once per call of the workload through a lossy network to `worker_url` (each thread's calls in
    order, the threads at once), all within CALL_SECONDS; judge."""
    trial = ClientTrial(workload, [Outcome(n, call.seats) for n, call in enumerate(workload.calls, 1)])
    plan = {n: call.faults for n, call in enumerate(workload.calls, 1)}
    lanes: dict[int, list[Outcome]] = {}
    for call, outcome in zip(workload.calls, trial.outcomes, strict=True):
        lanes.setdefault(call.thread, []).append(outcome)
    with LossyNetwork(worker_url, plan) as network:
        for outcome in trial.outcomes:
            outcome.header = network.call_header(outcome.call)
        clients = [_client(network) for _ in lanes]
        threads = [threading.Thread(target=_calls, args=(reserve, http, workshop, outcomes), daemon=True)
                   for http, outcomes in zip(clients, lanes.values(), strict=True)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + CALL_SECONDS  # one deadline for all: five hung calls take 30 s, not 150
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        for http in clients:
            http.close()  # a reserve still running gets an error from its next request (no retries for ever)
        for outcome in trial.outcomes:
            outcome.hung = outcome.hung or (not outcome.done)
            outcome.attempts = network.of_call(outcome.call)
        strangers = network.of_call(0)
    trial.failure = judge(trial.outcomes, strangers, worker_url, workshop,
                          endless={n for n, call in enumerate(workload.calls, 1) if call.endless})
    return trial


_CURRENT_CALL: contextvars.ContextVar[str] = contextvars.ContextVar("current_call", default="")


def _client(network: LossyNetwork) -> httpx.Client:
    """The `http` a thread's calls get: each request names the call that sends it (a context variable the thread
    sets around each call), so the same client serves calls one after the other."""
    def name_the_call(request: httpx.Request) -> None:
        if _CURRENT_CALL.get():
            request.headers[CALL_HEADER] = _CURRENT_CALL.get()

    return httpx.Client(base_url=network.url, timeout=CLIENT_TIMEOUT, trust_env=False, verify=tls_context(),
                        event_hooks={"request": [name_the_call]})


def _calls(reserve: Reserve, http: httpx.Client, workshop: str, outcomes: list[Outcome]) -> None:
    for outcome in outcomes:
        _CURRENT_CALL.set(outcome.header)
        try:
            outcome.returned = reserve(http, workshop, outcome.seats)
        except BaseException as error:  # noqa: BLE001 - whatever the learner's code raises is its result
            outcome.error = f"{type(error).__name__}: {error}".rstrip(".")  # it sits inside a sentence
        outcome.done = True


def first_decision(request_id: str, attempts: list[Attempt]) -> dict[str, Any] | None:
    """The Worker's first decision for `request_id` (an answer 201/409 that is no replay), if it made one."""
    decisions = [answer for attempt in attempts if attempt.request_id == request_id
                 for code, answer in attempt.answers if code in (201, 409)]
    return next((answer for answer in decisions if not answer.get("replayed")), decisions[0] if decisions else None)


def judge(outcomes: list[Outcome], strangers: list[Attempt], worker_url: str, workshop: str,
          endless: set[int] | frozenset[int] = frozenset()) -> Failure | None:
    """The first broken promise of the trial, as a Failure with its class; None when every one holds. A call in
    `endless` never reached the Worker's decision (every attempt refused): raising is its right end."""
    if strangers:
        return _failure("own_client", {})
    owner: dict[str, int] = {}
    for outcome in outcomes:
        for rid in outcome.request_ids:
            if owner.setdefault(rid, outcome.call) != outcome.call:
                return _failure("shared_request_id", {"rid": rid, "first": owner[rid], "call": outcome.call})
    for outcome in outcomes:
        if len(outcome.request_ids) > 1:
            return _failure("new_request_id", {"call": outcome.call, "rids": ", ".join(outcome.request_ids)})
    for outcome in outcomes:
        if outcome.hung:
            return _failure("hung", {"call": outcome.call, "seconds": round(CALL_SECONDS)})
        if outcome.error is not None and outcome.call not in endless:
            return _failure("gave_up", {"call": outcome.call, "error": outcome.error})
    for outcome in outcomes:
        if outcome.error is not None:  # an endless call that raised: right
            continue
        rid = outcome.request_ids[0] if outcome.request_ids else None
        first = first_decision(rid, outcome.attempts) if rid else None
        if not _same_decision(outcome.returned, first):  # a different decision, or one the Worker never made
            return _failure("wrong_decision", {"call": outcome.call, "returned": shown(outcome.returned),
                                               "first": shown(first)},
                            "exercises.class_wrong_decision" if first else "exercises.class_invented_decision")
    for outcome in outcomes:
        for before, after in zip(outcome.attempts, outcome.attempts[1:], strict=False):
            if before.fault in SEEN_FAILURES and 0 <= after.arrived - before.ended < MIN_WAIT:
                return _failure("no_backoff", {"call": outcome.call, "ms": round((after.arrived - before.ended)
                                                                                 * 1000, 1)})
    return _durable([outcome for outcome in outcomes if outcome.call not in endless], worker_url, workshop)


def _durable(outcomes: list[Outcome], worker_url: str, workshop: str) -> Failure | None:
    """The Worker's durable status holds exactly the seats of the reservations whose decision was accepted."""
    status = read_statuses(worker_url, [workshop])
    if isinstance(status, Failure):
        return status
    held = sum(outcome.seats for outcome in outcomes
               if isinstance(outcome.returned, dict) and outcome.returned.get("status") == "accepted")
    found = status[workshop]
    recorded = (found.get("acceptedRequests") or 0) + (found.get("rejectedRequests") or 0)
    if found.get("acceptedSeats") != held or recorded != len(outcomes):
        return _failure("not_durable", {"path": status_path(workshop), "seats": held, "calls": len(outcomes),
                                        "status": json.dumps(found)})  # a request around the network did it
    return None


def _same_decision(returned: Any, first: dict[str, Any] | None) -> bool:
    return (first is not None and isinstance(returned, dict)
            and all(returned.get(key) == first.get(key) for key in DECISION_FIELDS))


def _failure(kind: str, values: dict[str, Any], key: str | None = None) -> Failure:
    return Failure(kind, Message(key or f"exercises.class_{kind}", values), 1)

