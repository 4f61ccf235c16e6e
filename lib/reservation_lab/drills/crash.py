"""Crash drill: SIGKILL the whole `wrangler dev` group in the middle of a burst, restart, prove nothing was lost.

Per trial: a fresh run folder, a dev server, the durable status before, then a burst of one-seat requests
(distinct requestIds, one attempt each, no retries that could hide the crash) to one workshop. When a random
number of answers (drawn from a seeded RNG, 1 … burst-1) has been read, the drill sends SIGKILL to the server's
process group; answers that arrived are kept, requests without a 201/409 are undecided. The server is restarted
on the same state, the status read at once (what was stored at the moment of the crash), and every undecided
requestId plus every requestId that got a 201 is sent again (replay makes that safe). A trial holds when:

* every 201 from before the crash is replayed as the same acceptance (acknowledged reservations lost: 0);
* everything delivered before the crash was stored, and the durable totals agree: reserved == acceptedSeats
  <= capacity, with exactly min(burst, capacity) seats taken at the end;
* every requestId is decided exactly once: the stored attempts equal the distinct requestIds, the re-sent
  undecided ones answer `replayed: true` exactly as often as they had been stored before the crash;
* the serial-order checker explains both the state at the crash (undecided requests as unknowns) and the
  combined history (first answers and replay answers).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from reservation_lab.domain.burst import request_ids, reserve_with_retries, send_burst
from reservation_lab.domain.checker import check_history
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.decisions import Decision
from reservation_lab.domain.invariants import (
    CAPACITY,
    check_equal,
    check_status,
    durable_view,
    expected_summary,
    totals_after,
)
from reservation_lab.domain.routes import reservations_path
from reservation_lab.domain.runs import RunFolder
from reservation_lab.drills.common import (
    DrillFolder,
    add_workdir_option,
    blocking,
    bounded_int,
    choose_seed,
    format_table,
    invariant_problems,
    is_fresh,
    removed_note,
    require_between,
    serving_async,
    summed,
)
from reservation_lab.errors import LabError
from reservation_lab.runtime.devserver import DevServer
from reservation_lab.runtime.ports import LOOPBACK

WORKSHOP = "crash-drill"
PREFIX = "crash-request"
MAX_TRIALS = 50
MAX_BURST = 500
REQUEST_TIMEOUT = 30.0  # per request; a killed server resets its connections at once


@dataclass
class TrialResult:
    """One trial: where the kill fell, what the client knew, what the state held, and what broke (if anything)."""

    trial: int
    run_root: Path
    state_dir: Path
    burst: int
    kill_after_answers: int  # the random kill point (1 … burst-1): SIGKILL when this answer is read
    killed: bool = False  # SIGKILL reached a live group while requests were in flight
    kill_at_ms: float = 0.0  # after the burst was released
    answered_at_kill: int = 0  # answers the client had read when it sent SIGKILL
    in_flight_at_kill: int = 0
    accepted_before: int = 0  # 201s delivered before the crash
    rejected_before: int = 0  # 409s delivered before the crash
    undecided: int = 0  # transport errors / no definite answer
    stored_at_crash: int = 0  # attempt rows found after the restart, before any re-send
    accepted_stored_at_crash: int = 0
    decided_on_replay: int = 0  # undecided before the crash, answered `replayed: true` afterwards
    decided_after_restart: int = 0  # undecided before the crash and not stored: decided fresh after the restart
    acknowledged_lost: int = 0
    killed_exit_code: int | None = None  # of the killed server's group leader: -9 when SIGKILL ended it
    server_pgids: list[int] = field(default_factory=list)  # both servers' process groups (for leak checks)
    watchdog_pids: list[int] = field(default_factory=list)
    status_before: dict[str, Any] = field(default_factory=dict)
    status_at_crash: dict[str, Any] = field(default_factory=dict)
    status_after: dict[str, Any] = field(default_factory=dict)
    first_answers: list[Decision] = field(default_factory=list)
    replay_answers: list[Decision] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def held(self) -> bool:
        return self.killed and not self.problems


@dataclass
class CrashReport:
    """Every trial of one drill run, with the totals the CLI prints."""

    burst: int
    seed: int
    workdir: Path
    trials: list[TrialResult] = field(default_factory=list)

    kills = summed("trials", "killed", "Trials whose SIGKILL hit a live server with requests in flight.")
    acknowledged_lost = summed("trials", "acknowledged_lost", "201s not replayed as the same acceptance.")
    decided_on_replay = summed("trials", "decided_on_replay", "Undecided requests found stored after the restart.")
    held = summed("trials", "held", "Trials in which every invariant held.")

    @property
    def ok(self) -> bool:
        return bool(self.trials) and self.held == len(self.trials) and self.acknowledged_lost == 0

    def table(self) -> str:
        """One row per trial."""
        head = ("trial", "kill at", "answered@kill", "in flight", "201", "409", "undecided", "stored@crash",
                "accepted@crash", "replay-only", "after restart", "acked lost", "held")
        return format_table(head, [
            (str(t.trial), f"{t.kill_at_ms:.0f} ms", str(t.answered_at_kill), str(t.in_flight_at_kill),
             str(t.accepted_before), str(t.rejected_before), str(t.undecided), str(t.stored_at_crash),
             str(t.accepted_stored_at_crash), str(t.decided_on_replay), str(t.decided_after_restart),
             str(t.acknowledged_lost), "yes" if t.held else "NO")
            for t in self.trials
        ])

    def summary_line(self) -> str:
        n = len(self.trials)
        return (f"crash drill: {n} trials, {self.kills} kills, {self.acknowledged_lost} acknowledged reservations "
                f"lost, invariant held in {self.held}/{n}")


def _check_bounds(trials: int, burst: int) -> None:
    require_between("--trials", trials, 1, MAX_TRIALS)
    require_between("--burst", burst, 2, MAX_BURST)


async def run_crash_drill_async(
    trials: int = 5,
    burst: int = 200,
    seed: int | None = None,
    workdir: str | Path | None = None,
    progress: Callable[[TrialResult], None] | None = None,
) -> CrashReport:
    """The crash drill as a coroutine. Without `workdir` the run folders go to a temporary directory that is
    removed when every trial held (and kept, for its logs, when one did not)."""
    _check_bounds(trials, burst)
    seed = choose_seed(seed)
    rng = random.Random(seed)
    folder = DrillFolder.open(workdir, "crash-drill-")
    used = [name for name in (f"trial-{n}" for n in range(1, trials + 1)) if (folder.root / name).exists()]
    if used:
        raise LabError("drills.workdir_used", folder=folder.root, used=", ".join(used))
    report = CrashReport(burst=burst, seed=seed, workdir=folder.root)
    for number in range(1, trials + 1):
        result = await _trial(number, folder.run_folder(f"trial-{number}"), burst, rng.randrange(1, burst))
        report.trials.append(result)
        if progress is not None:
            progress(result)
    folder.finish(report.ok)
    return report


run_crash_drill = blocking(
    run_crash_drill_async,
    "Run the crash drill (see the module docstring) from plain Python; in a notebook use "
    "`await run_crash_drill_async(...)`.",
)


def _status(base_url: str) -> dict[str, Any]:
    with LabClient(base_url) as client:
        return client.status(WORKSHOP)


async def _trial(number: int, run: RunFolder, burst: int, kill_after: int) -> TrialResult:
    """One trial: start, burst and kill, restart on the same state, re-send, check."""
    result = TrialResult(number, run.root, run.state_dir, burst, kill_after)
    ids = request_ids(burst, PREFIX)
    async with _phase(run, "dev-before-crash.log", result) as server:
        result.status_before = await asyncio.to_thread(_status, server.base_url)
        result.first_answers = await _burst_and_kill(server, ids, kill_after, result)
    result.killed_exit_code = server.proc.returncode

    async with _phase(run, "dev-after-crash.log", result) as server:
        result.status_at_crash = await asyncio.to_thread(_status, server.base_url)
        accepted = [d.request_id for d in result.first_answers if d.status_code == 201]
        undecided = [d.request_id for d in result.first_answers if not d.decided]
        # Replay makes these safe: the same requestId gets its first decision back, never a second one.
        result.replay_answers = await send_burst(server.base_url, WORKSHOP, ids=accepted + undecided,
                                                 timeout=REQUEST_TIMEOUT)
        result.status_after = await asyncio.to_thread(_status, server.base_url)
    _verify(result)
    return result


@asynccontextmanager
async def _phase(run: RunFolder, log_name: str, result: TrialResult) -> AsyncIterator[DevServer]:
    """A dev server for one half of a trial: remembered for the leak checks; afterwards stopped and checked gone
    (as problems of the trial: a killed server's lingering connections are no failure of the stop itself)."""
    async with serving_async(run, log_name, prove=False) as server:
        result.server_pgids.append(server.pgid)
        result.watchdog_pids.append(server.watchdog.pid)
        yield server
    _check_gone(server, result)


async def _burst_and_kill(server: DevServer, ids: list[str], kill_after: int, result: TrialResult) -> list[Decision]:
    """Send every request once, all released together; SIGKILL the group the moment answer `kill_after` is read.

    The kill runs inline in the coroutine that read that answer, so no other answer is processed in between.
    """
    decisions = [Decision(request_id, 1) for request_id in ids]
    url = server.base_url + reservations_path(WORKSHOP)
    barrier = asyncio.Barrier(len(ids))
    answered = finished = 0
    origin = 0.0

    def kill() -> None:
        if result.kill_at_ms:
            return
        result.kill_at_ms = max((time.perf_counter() - origin) * 1000, 0.001)
        result.answered_at_kill = answered
        result.in_flight_at_kill = len(ids) - finished
        alive = server.proc.poll() is None  # cheap: the group leader, wrangler's node, is still running
        try:
            os.killpg(server.pgid, signal.SIGKILL)
        except ProcessLookupError:
            alive = False
        result.killed = alive and result.in_flight_at_kill > 0

    async def send(client: httpx.AsyncClient, decision: Decision) -> None:
        nonlocal answered, finished
        await barrier.wait()
        # One attempt, no retry: a transport error here is the crash (no definite answer).
        await reserve_with_retries(client, url, decision, max_attempts=1, origin=origin)
        finished += 1
        if decision.attempts[-1].status_code is None:
            return
        answered += 1
        if answered >= kill_after:
            kill()

    limits = httpx.Limits(max_connections=len(ids), max_keepalive_connections=len(ids))
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, limits=limits, trust_env=False) as client:
        origin = time.perf_counter()
        await asyncio.gather(*(send(client, d) for d in decisions))
    kill()  # bounded: should every request fail before answer `kill_after`, the server still goes down here
    return decisions


def _listening(port: int) -> bool:
    """True if a connection to 127.0.0.1:port is accepted. (After a SIGKILL the port keeps TIME_WAIT sockets
    for a minute, so a bind test would report it busy although nothing listens.)"""
    try:
        with socket.create_connection((LOOPBACK, port), timeout=1.0):
            return True
    except OSError:
        return False


def _check_gone(server: DevServer, result: TrialResult) -> None:
    """After stop(): no process of the group, the port free, the watchdog ended."""
    left = server.processes()
    if left:
        result.problems.append(f"dev server group {server.pgid} left processes {left} behind.")
    if _listening(server.port):
        result.problems.append(f"something still listens on port {server.port} after the stop.")
    if server.watchdog.poll() is None:
        result.problems.append("the dev server's watchdog is still running.")


def _verify(r: TrialResult) -> None:
    """Fill in the trial's numbers and record every invariant that does not hold."""
    first = {d.request_id: d for d in r.first_answers}
    replay = {d.request_id: d for d in r.replay_answers}
    r.accepted_before = sum(d.status_code == 201 for d in r.first_answers)
    r.rejected_before = sum(d.status_code == 409 for d in r.first_answers)
    r.undecided = sum(not d.decided for d in r.first_answers)
    r.stored_at_crash = r.status_at_crash["acceptedRequests"] + r.status_at_crash["rejectedRequests"]
    r.accepted_stored_at_crash = r.status_at_crash["acceptedRequests"]
    if not r.killed:
        r.problems.append(f"the kill did not hit a live server with requests in flight ({r.in_flight_at_kill} "
                          "in flight).")
    elif r.killed_exit_code != -signal.SIGKILL:
        r.problems.append(f"the killed server's leader exited with {r.killed_exit_code}, not by SIGKILL.")
    if not is_fresh(r.status_before):
        r.problems.append(f"the trial did not start from fresh state: {r.status_before}.")
    _check_acknowledged(r, first, replay)
    _check_stored(r)
    _check_decided_once(r, first, replay)
    _check_histories(r)


def _check_acknowledged(r: TrialResult, first: dict[str, Decision], replay: dict[str, Decision]) -> None:
    """Acknowledged reservations survive: every 201 is replayed as the same acceptance."""
    for rid, d in first.items():
        if d.status_code != 201:
            continue
        again = replay.get(rid)
        if (again is None or again.status_code != 201 or not again.replayed
                or again.reserved != d.reserved):
            r.acknowledged_lost += 1
            r.problems.append(f"{rid} was accepted before the crash (reserved={d.reserved}) but after the restart "
                              f"answered {None if again is None else (again.status_code, again.body)}.")


def _check_stored(r: TrialResult) -> None:
    """Everything delivered was stored (a response leaves only after its write is durable), and the durable
    totals agree with themselves at the crash and after the re-sends."""
    if r.stored_at_crash < r.accepted_before + r.rejected_before:
        r.problems.append(f"{r.accepted_before + r.rejected_before} answers were delivered before the crash but "
                          f"only {r.stored_at_crash} attempts were stored.")
    if r.accepted_stored_at_crash < r.accepted_before:
        r.problems.append(f"{r.accepted_before} acceptances were delivered but only {r.accepted_stored_at_crash} "
                          "were stored.")
    for label, status in (("at the crash", r.status_at_crash), ("after the re-sends", r.status_after)):
        r.problems += [f"{label}: {problem}" for problem in _totals_problems(status)]


def _totals_problems(status: dict[str, Any]) -> list[str]:
    """The durable totals agree with themselves (reserved == acceptedSeats within 0..capacity) and the capacity
    is the Worker's CAPACITY."""
    return invariant_problems(lambda: check_equal("capacity", status["capacity"], CAPACITY),
                              lambda: check_status(status))


def _check_decided_once(r: TrialResult, first: dict[str, Decision], replay: dict[str, Decision]) -> None:
    """Every requestId decided exactly once: the re-sent undecided ones replay exactly the stored ones, and the
    final totals are those of one decision per requestId (min(burst, capacity) one-seat acceptances)."""
    for d in r.replay_answers:
        if not d.decided:
            r.problems.append(f"{d.request_id} got no decision after the restart (HTTP {d.status_code}, {d.body}).")
    undecided = [rid for rid, d in first.items() if not d.decided]
    r.decided_on_replay = sum(replay[rid].replayed for rid in undecided if rid in replay)
    r.decided_after_restart = sum(replay[rid].body.get("replayed") is False for rid in undecided if rid in replay)
    stored_undecided = r.stored_at_crash - r.accepted_before - r.rejected_before
    if r.decided_on_replay != stored_undecided:
        r.problems.append(f"{stored_undecided} undecided requests were stored at the crash but "
                          f"{r.decided_on_replay} re-sends answered replayed: true.")
    before = r.status_before
    once = totals_after(before, expected_summary(len(first), before["capacity"], before["reserved"]))
    r.problems += invariant_problems(lambda: check_equal(
        "totals_after_distinct", durable_view(r.status_after), once, n=len(first)))


def _check_histories(r: TrialResult) -> None:
    """The serial-order checker explains the state at the crash and the whole history."""
    at_crash = check_history(r.first_answers, r.status_before, r.status_at_crash)
    if not at_crash.ok:
        r.problems.append(f"checker, history up to the crash: {at_crash.problem}")
    combined = check_history(r.first_answers + r.replay_answers, r.status_before, r.status_after)
    if not combined.ok:
        r.problems.append(f"checker, combined history: {combined.problem}")
    elif combined.unknown:
        r.problems.append(f"checker: {len(combined.unknown)} requests are still undecided after the re-sends.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `drill crash`; the command runs `main`."""
    parser.add_argument("--trials", type=bounded_int(1, MAX_TRIALS), default=5, help="crash trials (default 5)")
    parser.add_argument("--burst", type=bounded_int(2, MAX_BURST), default=200,
                        help=f"one-seat requests per burst (default 200; capacity is {CAPACITY})")
    parser.add_argument("--seed", type=int, default=None, help="seed of the kill moments (default: a random one)")
    add_workdir_option(parser, "folder for the trials' run folders")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run the drill from parsed arguments, print the table and the summary; 0 only if every trial held."""

    def show(t: TrialResult) -> None:
        verdict = "held" if t.held else "BROKEN: " + "; ".join(t.problems)
        print(f"trial {t.trial}: SIGKILL at answer {t.kill_after_answers} ({t.kill_at_ms:.0f} ms), "
              f"{t.undecided} undecided, {t.stored_at_crash} stored at the crash — {verdict}", flush=True)

    report = run_crash_drill(args.trials, args.burst, args.seed, args.workdir, progress=show)
    print(f"\nseed {report.seed}, burst {report.burst}, capacity {CAPACITY}, run folders in {report.workdir}"
          + removed_note(bool(args.workdir), report.ok))
    print(report.table())
    print(report.summary_line())
    return 0 if report.ok else 1
