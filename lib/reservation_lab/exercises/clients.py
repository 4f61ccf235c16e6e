"""The client exercise: a learner's `reserve(http, workshop, seats)` against the real Worker over a lossy network.

A workload is a few reservations made at the same moment (threads), each with the faults the network does to its
first attempts (exercises.lossy); hypothesis generates and shrinks them as it does the Workers' workloads. Judged
end to end, from what reached the Worker (the proxy's log) and its durable status: each reservation reaches the
Worker under one requestId of its own; `reserve` returns a decision for each, and it is the Worker's first decision
for that requestId (a replayed answer is that decision, repeated); it waits before each retry. The first thing
that does not hold is the trial's Failure, with its class.
"""

from __future__ import annotations

import json
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from hypothesis import strategies as st

from reservation_lab.domain.routes import status_path
from reservation_lab.exercises.judge import Failure, read_statuses, tls_context
from reservation_lab.exercises.lossy import CALL_HEADER, FAULTS, Attempt, LossyNetwork
from reservation_lab.i18n import Message

MAX_CALLS, MAX_FAULTS = 5, 3  # reservations at once; faults in a row for one reservation (the task says 3)
CALL_SECONDS = 30.0  # a reserve() that has not returned by then has hung
CLIENT_TIMEOUT = 5.0  # the given httpx.Client's default timeout (a learner may pass a shorter one per request)
MIN_WAIT = 0.01  # seconds a retry must wait after a failure the client saw (the task says at least 10 ms)
SEEN_FAILURES = ("drop_request", "drop_answer", "gateway_error", "refuse")  # the client sees them end at once
DECISION_FIELDS = ("requestId", "status", "reserved")  # what a returned decision must share with the Worker's first
Reserve = Callable[[httpx.Client, str, int], Any]


@dataclass(frozen=True)
class Call:
    """One reservation: its seats and what the network does to its first attempts."""

    seats: int
    faults: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClientWorkload:
    calls: tuple[Call, ...]

    @property
    def size(self) -> int:
        return sum(1 + len(call.faults) for call in self.calls)


client_workloads = st.builds(ClientWorkload, calls=st.lists(
    st.builds(Call, seats=st.integers(1, 4),
              faults=st.lists(st.sampled_from(FAULTS), max_size=MAX_FAULTS).map(tuple)),
    min_size=1, max_size=MAX_CALLS).map(tuple))


@dataclass
class Outcome:
    """What one call of `reserve` did: its attempts through the network and what it returned or raised."""

    call: int
    seats: int
    attempts: list[Attempt] = field(default_factory=list)
    returned: Any = None
    error: str | None = None  # what it raised (`Type: text`)
    hung: bool = False  # it had not returned after CALL_SECONDS

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


def load_reserve(path: Path) -> Reserve:
    """The `reserve` function of the learner's file, compiled from its text each time (no bytecode cache, which
    could hand back an earlier edit of the same size within the same second)."""
    module = types.ModuleType("client")
    module.__file__ = str(path)
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)  # noqa: S102 - the learner's own file
    reserve = getattr(module, "reserve", None)
    if not callable(reserve):
        raise AttributeError("reserve")
    return reserve


def run_client_trial(reserve: Reserve, workload: ClientWorkload, worker_url: str, workshop: str) -> ClientTrial:
    """Call `reserve` once per call of the workload, all at once, through a lossy network to `worker_url`; judge."""
    trial = ClientTrial(workload, [Outcome(n, call.seats) for n, call in enumerate(workload.calls, 1)])
    plan = {n: call.faults for n, call in enumerate(workload.calls, 1)}
    with LossyNetwork(worker_url, plan) as network:
        threads = [threading.Thread(target=_call, args=(reserve, network.url, workshop, outcome), daemon=True)
                   for outcome in trial.outcomes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(CALL_SECONDS)
        for outcome, thread in zip(trial.outcomes, threads, strict=True):
            outcome.hung = thread.is_alive()
            outcome.attempts = network.of_call(outcome.call)
        strangers = network.of_call(0)
    trial.failure = judge(trial.outcomes, strangers, worker_url, workshop)
    return trial


def _call(reserve: Reserve, url: str, workshop: str, outcome: Outcome) -> None:
    with httpx.Client(base_url=url, headers={CALL_HEADER: str(outcome.call)}, timeout=CLIENT_TIMEOUT,
                      trust_env=False, verify=tls_context()) as http:
        try:
            outcome.returned = reserve(http, workshop, outcome.seats)
        except BaseException as error:  # noqa: BLE001 - whatever the learner's code raises is its result
            outcome.error = f"{type(error).__name__}: {error}".rstrip(".")  # it sits inside a sentence


def first_decision(request_id: str, attempts: list[Attempt]) -> dict[str, Any] | None:
    """The Worker's first decision for `request_id` (an answer 201/409 that is no replay), if it made one."""
    decisions = [answer for attempt in attempts if attempt.request_id == request_id
                 for code, answer in attempt.answers if code in (201, 409)]
    return next((answer for answer in decisions if not answer.get("replayed")), decisions[0] if decisions else None)


def judge(outcomes: list[Outcome], strangers: list[Attempt], worker_url: str, workshop: str) -> Failure | None:
    """The first broken promise of the trial, as a Failure with its class; None when every one holds."""
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
        if outcome.error is not None:
            return _failure("gave_up", {"call": outcome.call, "error": outcome.error})
    for outcome in outcomes:
        rid = outcome.request_ids[0] if outcome.request_ids else None
        first = first_decision(rid, outcome.attempts) if rid else None
        if not _same_decision(outcome.returned, first):  # a different decision, or one the Worker never made
            return _failure("wrong_decision", {"call": outcome.call, "returned": _shown(outcome.returned),
                                               "first": _shown(first)},
                            "exercises.class_wrong_decision" if first else "exercises.class_invented_decision")
    for outcome in outcomes:
        for before, after in zip(outcome.attempts, outcome.attempts[1:], strict=False):
            if before.fault in SEEN_FAILURES and after.arrived - before.ended < MIN_WAIT:
                return _failure("no_backoff", {"call": outcome.call, "ms": round((after.arrived - before.ended)
                                                                                 * 1000, 1)})
    return _durable(outcomes, worker_url, workshop)


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


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        value = {key: value[key] for key in (*DECISION_FIELDS, "replayed") if key in value} or value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _failure(kind: str, values: dict[str, Any], key: str | None = None) -> Failure:
    return Failure(kind, Message(key or f"exercises.class_{kind}", values), 1)

