"""The transfer exercise's workloads and trial: reservations in two workshops (one of them perhaps cancelled by its
person), then transfers between them at once (and perhaps more once those are answered),
some sent twice, some of the same reservation, some with the server restarted between their two steps; every
transfer without an answer is sent again under its transferId until it gets one. Then what must hold across the two
objects, which no transaction spans: the seats the two workshops hold together are what they were (a transfer
moves seats, it never creates or loses one), every answer says where its reservation is, and each counter agrees
with its rows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import httpx
from hypothesis import strategies as st

from reservation_lab.domain.routes import reservation_path, reservations_path
from reservation_lab.exercises.between_steps import BetweenSteps
from reservation_lab.exercises.judge import REQUEST_TIMEOUT, Failure, read_statuses, run_to_completion, tls_context
from reservation_lab.i18n import Message

TRANSFERS_PATH = "/transfers"
TRANSFER_CODES = (200, 409)  # moved; not held, not accepted or no room (every transfer names a known reservation)
MOVED = "moved"  # the status of a 200


@dataclass(frozen=True)
class Move:
    """One transfer of a workload: the reservation it moves (`ref`, an index into the workload's reservations),
    to the other workshop; `twins`: sent twice at the same moment under one transferId; `restart`: the server
    restarts when it first reaches betweenSteps(); `later`: sent once the others are answered (a transfer of a
    reservation another one has already moved)."""

    ref: int
    twins: bool = False
    restart: bool = False
    later: bool = False


@dataclass(frozen=True)
class TransferWorkload:
    """Reservations (workshop 0 or 1, seats), sent at once; the ones `cancelled` names (indices, as `Move.ref`)
    then cancelled by their person (DELETE); then the moves, sent at once."""

    reservations: tuple[tuple[int, int], ...]
    moves: tuple[Move, ...]
    cancelled: tuple[int, ...] = ()

    @property
    def rounds(self) -> tuple[tuple[Any, ...], ...]:
        return self.reservations, self.moves

    @property
    def size(self) -> int:
        return len(self.reservations) + len(self.cancelled) + sum(1 + move.twins for move in self.moves)


def _transfer_workloads(reservations: int, moves: int) -> st.SearchStrategy[TransferWorkload]:
    reservation = st.tuples(st.integers(0, 1), st.integers(1, 4))
    move = st.builds(Move, ref=st.integers(0, 7), twins=st.booleans(), restart=st.sampled_from((False, False, True)),
                     later=st.sampled_from((False, False, True)))
    return st.builds(TransferWorkload, reservations=st.lists(reservation, min_size=1, max_size=reservations).map(tuple),
                     moves=st.lists(move, min_size=1, max_size=moves).map(tuple),
                     cancelled=st.lists(st.integers(0, 7), max_size=1).map(tuple))  # shrinks to none


transfer_workloads = _transfer_workloads(4, 3)  # shrinks towards one reservation, one plain move
large_transfer_workloads = _transfer_workloads(8, 8)


@dataclass
class Booked:
    """A reservation of the workload and the Worker's answer (`code` None: none); `cancelled`: the code its person's
    cancel got, if the workload cancels it before the transfers."""

    rid: str
    workshop: str
    seats: int
    code: int | None = None
    answer: dict[str, Any] = field(default_factory=dict)
    cancelled: int | None = None


@dataclass
class Transfer:
    """One transfer and every answer its sends got (None: no answer), in the order they came."""

    transfer_id: str
    booked: Booked
    target: str
    twins: bool
    restart: bool
    later: bool = False
    answers: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)

    @property
    def body(self) -> dict[str, str]:
        return {"transferId": self.transfer_id, "from": self.booked.workshop, "to": self.target,
                "requestId": self.booked.rid}

    @property
    def answered(self) -> tuple[int, dict[str, Any]] | None:
        """The last answer it got, if any."""
        got = [(code, answer) for code, answer in self.answers if code is not None]
        return got[-1] if got else None


@dataclass
class TransferTrial:
    workload: TransferWorkload
    booked: list[Booked] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)
    restarts: int = 0
    failure: Failure | None = None

    @property
    def requests(self) -> int:
        return len(self.booked) + sum(len(transfer.answers) for transfer in self.transfers)


async def _post(client: httpx.AsyncClient, path: str, body: dict[str, Any]) -> tuple[int | None, dict[str, Any]]:
    try:
        response = await client.post(path, json=body)
    except httpx.HTTPError:
        return None, {}
    try:
        answer = response.json()
    except ValueError:
        answer = {"text": response.text[:200]}
    return response.status_code, answer if isinstance(answer, dict) else {"json": answer}


async def _book(base_url: str, booked: list[Booked]) -> None:
    async with _client(base_url, len(booked)) as client:
        answers = await asyncio.gather(*(_post(client, reservations_path(one.workshop),
                                               {"requestId": one.rid, "seats": one.seats}) for one in booked))
    for one, (code, answer) in zip(booked, answers, strict=True):
        one.code, one.answer = code, answer


async def _cancel(base_url: str, booked: list[Booked]) -> None:
    async with _client(base_url, len(booked)) as client:
        for one in booked:
            try:
                one.cancelled = (await client.delete(reservation_path(one.workshop, one.rid))).status_code
            except httpx.HTTPError:
                one.cancelled = 0


async def _send_transfers(base_url: str, transfers: list[Transfer]) -> None:
    sends = [transfer for transfer in transfers for _ in range(1 + transfer.twins)]
    async with _client(base_url, len(sends)) as client:
        answers = await asyncio.gather(*(_post(client, TRANSFERS_PATH, transfer.body) for transfer in sends))
    for transfer, answer in zip(sends, answers, strict=True):
        transfer.answers.append(answer)


def _client(base_url: str, sends: int) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=base_url, timeout=REQUEST_TIMEOUT, trust_env=False, verify=tls_context(),
                             limits=httpx.Limits(max_connections=sends + 2))


def run_transfer_trial(workload: TransferWorkload, base_url: Callable[[], str], prefix: str,
                       hook: BetweenSteps) -> TransferTrial:
    """Book the workload's reservations in `<prefix>-a` and `<prefix>-b` (and cancel the ones its person cancels),
    send its transfers at once, then its later ones, each group until every transfer is answered, and judge the
    result. `base_url()` is the grading server's URL now (a restart may change it)."""
    trial = TransferTrial(workload)
    workshops = [f"{prefix}-a", f"{prefix}-b"]
    trial.booked = [Booked(f"r{n}-1", workshops[side], seats)
                    for n, (side, seats) in enumerate(workload.reservations, 1)]
    run_to_completion(partial(_book, base_url(), trial.booked))
    unanswered = next((one for one in trial.booked if one.code not in (201, 409)), None)
    if unanswered is not None:
        key = "exercises.no_answer" if unanswered.code is None else "exercises.no_decision"
        trial.failure = Failure("crash", Message(key, {"rid": unanswered.rid, "code": unanswered.code,
                                                       "seconds": REQUEST_TIMEOUT}), 1)
        return trial
    cancelled = list({id(one): one for one in (trial.booked[n % len(trial.booked)]
                                                  for n in workload.cancelled)}.values())
    if cancelled:
        run_to_completion(partial(_cancel, base_url(), cancelled))
        wrong = next((one for one in cancelled if one.cancelled not in (200, 409)), None)
        if wrong is not None:  # the cancel exercise's solution, given: 200, or 409 for a rejected reservation
            trial.failure = Failure("crash", Message("exercises.no_cancel_decision", {
                "rid": wrong.rid, "code": wrong.cancelled}), 1)
            return trial
    before = read_statuses(base_url(), workshops)
    if isinstance(before, Failure):
        trial.failure = before
        return trial
    for n, move in enumerate(workload.moves, 1):
        booked = trial.booked[move.ref % len(trial.booked)]
        target = workshops[1 - workshops.index(booked.workshop)]
        trial.transfers.append(Transfer(f"{prefix}-t{n}", booked, target, move.twins, move.restart, move.later))
    try:
        for later in (False, True):
            _send_to_completion([t for t in trial.transfers if t.later == later], base_url, hook, trial)
    finally:
        hook.reset()
        trial.restarts += hook.settle()  # none left running when the trial ends
    trial.failure = judge_transfers(trial, base_url(), workshops, before)
    return trial


def _send_to_completion(transfers: list[Transfer], base_url: Callable[[], str], hook: BetweenSteps,
                        trial: TransferTrial) -> None:
    """Send `transfers` at once (the restarting ones armed on `hook`) and each one a restart left unanswered again.
    A restart takes every answer in flight, and an armed transfer it took restarts on its retry: at most one restart
    per armed transfer, so as many sends again and one more."""
    armed = {transfer.transfer_id for transfer in transfers if transfer.restart}
    hook.arm(armed)
    pending = transfers
    for _ in range(len(armed) + 1):
        if not pending:
            return
        run_to_completion(partial(_send_transfers, base_url(), pending))
        restarted = hook.settle()
        trial.restarts += restarted
        if restarted:
            _taken_by_the_restart(pending)
        pending = [transfer for transfer in pending if transfer.answered is None]
        if not restarted:  # no restart took their answers: the Worker itself gave none
            return


def _taken_by_the_restart(sent: list[Transfer]) -> None:
    """A server stopped while a send was in flight may end it without an answer or with a 5xx (wrangler dev's proxy
    answers 500 "Network connection lost" when its runtime goes first): in a round with a restart, such a 5xx is
    no answer of the Worker's, and the transfer is sent again like one that got none."""
    for transfer in sent:
        if transfer.answers and (transfer.answers[-1][0] or 0) >= 500:
            transfer.answers[-1] = (None, transfer.answers[-1][1])


def judge_transfers(trial: TransferTrial, base_url: str, workshops: list[str],
                    before: dict[str, dict[str, Any]]) -> Failure | None:
    """The first of: a transfer without a decision, seats not conserved (together, then in each workshop: the seats
    of the reservations that left it and arrived in it), an answer that says the wrong place, a counter apart from
    its rows."""
    for transfer in trial.transfers:
        for code, answer in transfer.answers:
            if code is not None and (code not in TRANSFER_CODES or (code == 200 and answer.get("status") != MOVED)):
                return Failure("crash", Message("exercises.no_transfer_decision", {
                    "transfer": transfer.transfer_id, "code": code}), 2)
        if transfer.answered is None:
            return Failure("crash", Message("exercises.transfer_no_answer", {
                "transfer": transfer.transfer_id, "attempts": len(transfer.answers)}), 2)
    after = read_statuses(base_url, workshops)
    if isinstance(after, Failure):
        return after
    unreadable = next((w for w in workshops for status in (before[w], after[w])
                       if type(status.get("reserved")) is not int), None)
    if unreadable is not None:
        return Failure("crash", Message("exercises.status_unreadable", {"workshop": unreadable}), 2)
    held_before = sum(before[w]["reserved"] for w in workshops)
    held_after = sum(after[w]["reserved"] for w in workshops)
    if held_after != held_before:
        return Failure("seats_not_conserved", Message("exercises.class_seats_not_conserved", {
            "source": workshops[0], "target": workshops[1], "before": held_before, "after": held_after}), 2)
    places = _places(base_url, {transfer.booked.rid: transfer.booked for transfer in trial.transfers})
    if isinstance(places, Failure):
        return places
    for workshop in workshops:  # each reservation that left a workshop arrived in the other one
        moved = {transfer.booked.rid: transfer for transfer in trial.transfers
                 if places[transfer.booked.rid] and transfer.booked.cancelled is None}.values()
        expected = (before[workshop]["reserved"]
                    - sum(t.booked.seats for t in moved if t.booked.workshop == workshop)
                    + sum(t.booked.seats for t in moved if t.target == workshop))
        if after[workshop]["reserved"] != expected:
            return Failure("seats_not_conserved", Message("exercises.class_seats_misplaced", {
                "workshop": workshop, "reserved": after[workshop]["reserved"], "expected": expected}), 2)
    for transfer in trial.transfers:  # every answer, a twin's and a retry's too; a reservation its person cancelled
        # cannot move (cancelled, but not moved)
        moved = places[transfer.booked.rid] and transfer.booked.cancelled is None
        wrong = next(((code, answer) for code, answer in transfer.answers
                      if code is not None and (code == 200) != moved), None)
        if wrong is not None:
            return Failure("transfer_answer", Message("exercises.class_transfer_answer", {
                "transfer": transfer.transfer_id, "answer": shown_answer(*wrong),
                "rid": transfer.booked.rid, "source": transfer.booked.workshop,
                "state": Message("exercises.state_cancelled" if transfer.booked.cancelled is not None else
                                 "exercises.state_moved" if moved else "exercises.state_held")}), 2)
    for workshop in workshops:
        reserved, held = after[workshop]["reserved"], after[workshop].get("acceptedSeats")
        if reserved != held:
            return Failure("transfer_counter", Message("exercises.class_transfer_counter", {
                "workshop": workshop, "reserved": reserved, "held": held}), 2)
    return None


def shown_answer(code: int | None, answer: dict[str, Any]) -> str:
    """An answer as the grade shows it: its HTTP code and what it says (moved, or the error)."""
    return f"{code} {answer.get('status') or answer.get('error') or ''}".strip()


def _places(base_url: str, booked: dict[str, Booked]) -> dict[str, bool] | Failure:
    """For each reservation a transfer named: whether it has left its workshop (cancelled there)."""
    found: dict[str, bool] = {}
    with httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT, trust_env=False, verify=tls_context()) as client:
        for rid, one in booked.items():
            try:
                response = client.get(reservation_path(one.workshop, rid))
                found[rid] = bool(response.json().get("cancelled")) if response.status_code == 200 else False
            except (httpx.HTTPError, ValueError, AttributeError):
                return Failure("crash", Message("exercises.status_unreadable", {"workshop": one.workshop}), 2)
    return found
