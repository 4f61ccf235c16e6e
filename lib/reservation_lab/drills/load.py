"""Load drill: thousands of reservations at several concurrency levels against one real `wrangler dev`.

For each level the drill sends `requests` reservations with distinct requestIds (new ones per level) spread
round-robin over `workshops` fresh workshops (new names per level), one or two seats each (seeded RNG), with
at most `concurrency` requests in flight (one `httpx.AsyncClient`, an `asyncio.Semaphore`). A transport error
or a 5xx answer is retried with the SAME requestId (bounded attempts, exponential backoff with jitter): the
Worker replays a known requestId's first decision, so a retry can never reserve twice. Local `wrangler dev`
drops some requests under load with `500 Network connection lost` (a dev-server limitation, not the Worker's);
they are counted as first-try errors.

A level holds when no request is lost (every requestId got a 201 or 409 in the end) and, per workshop:

* invariants: the durable `reserved == acceptedSeats <= capacity`, `reserved` grew by exactly the seats the
  answers accepted, `acceptedRequests` grew by the accepted answers and `acceptedRequests + rejectedRequests`
  by the number of distinct requestIds sent; every answer names its workshop, requestId and seats;
* the serial-order checker (`reservation_lab.domain.checker.check_history`, before = the fresh workshop's status,
  after = its status after the level) finds a one-at-a-time order that explains every answer.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from reservation_lab.domain.burst import RETRY_STATUSES, doubling_backoff, reserve_with_retries
from reservation_lab.domain.checker import check_history
from reservation_lab.domain.decisions import Decision
from reservation_lab.domain.invariants import answered_totals_problems
from reservation_lab.domain.routes import reservations_path, status_path
from reservation_lab.drills.common import (
    DrillFolder,
    add_progress_option,
    add_workdir_option,
    blocking,
    bounded_int,
    format_table,
    is_fresh,
    progress_bar,
    removed_note,
    require_between,
    serving_async,
    summed,
)
from reservation_lab.errors import LabError
from reservation_lab.i18n import plural, quoted

MAX_REQUESTS = 20_000  # per level
MAX_CONCURRENCY = 500
MAX_LEVELS = 8
MAX_WORKSHOPS = 1_000
MAX_ATTEMPTS = 6  # per requestId: the first try and up to five retries
REQUEST_TIMEOUT = 30.0  # seconds, per attempt
LEVEL_TIMEOUT = 600.0  # seconds, per level (sending and the status reads)
STATUS_CONCURRENCY = 10  # status reads before/after a level are not part of the measurement


@dataclass
class LevelReport:
    """One concurrency level: throughput, latencies, errors, and both verdicts."""

    concurrency: int
    requests: int
    workshops: int
    seconds: float = 0.0
    client_cpu_seconds: float = 0.0  # CPU time of this Python process while the level ran (the client's share)
    latency_ms: dict[str, float] = field(default_factory=dict)  # p50/p99 of the final attempt
    end_to_end_ms: dict[str, float] = field(default_factory=dict)  # p50/p99 from the first send to the answer
    first_try_errors: int = 0  # requests whose first attempt was a transport error or a 5xx
    first_try_error_kinds: dict[str, int] = field(default_factory=dict)  # e.g. {"HTTP 500": 3}
    retries: int = 0  # attempts beyond the first, over all requests
    lost: int = 0  # requests without a 201/409 after every attempt
    accepted: int = 0
    rejected: int = 0
    replayed: int = 0  # final answers with `replayed: true` (an earlier attempt had taken effect)
    invariant_problems: list[str] = field(default_factory=list)
    checker_problems: list[str] = field(default_factory=list)

    @property
    def requests_per_second(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def client_cpu_share(self) -> float:
        """The client's CPU time as a fraction of the level's wall time (near 1: the client limits the rate)."""
        return self.client_cpu_seconds / self.seconds if self.seconds > 0 else 0.0

    @property
    def invariants_ok(self) -> bool:
        return not self.invariant_problems

    @property
    def checker_ok(self) -> bool:
        return not self.checker_problems

    @property
    def ok(self) -> bool:
        return self.lost == 0 and self.invariants_ok and self.checker_ok


@dataclass
class LoadReport:
    """Every level of one drill run, on one dev server."""

    requests: int
    workshops: int
    seed: int
    workdir: Path
    levels: list[LevelReport] = field(default_factory=list)
    server_start_seconds: float = 0.0
    port: int = 0  # of the dev server (stopped when the drill returns)

    lost = summed("levels", "lost", "Requests without a 201/409 after every attempt, over all levels.")

    @property
    def ok(self) -> bool:
        return bool(self.levels) and all(level.ok for level in self.levels)

    def table(self) -> str:
        """One row per level (latencies in milliseconds)."""
        head = ("concurrency", "requests", "req/s", "client CPU", "p50", "p99", "e2e p50", "e2e p99", "1st-try err",
                "retries", "lost", "accepted", "rejected", "invariants", "checker")
        return format_table(head, [
            (str(lv.concurrency), str(lv.requests), f"{lv.requests_per_second:.0f}", f"{lv.client_cpu_share:.0%}",
             f"{lv.latency_ms.get('p50', 0):.1f}", f"{lv.latency_ms.get('p99', 0):.1f}",
             f"{lv.end_to_end_ms.get('p50', 0):.1f}", f"{lv.end_to_end_ms.get('p99', 0):.1f}",
             str(lv.first_try_errors), str(lv.retries), str(lv.lost), str(lv.accepted), str(lv.rejected),
             "hold" if lv.invariants_ok else "BROKEN", "ok" if lv.checker_ok else "FAILED")
            for lv in self.levels
        ])

    def problems(self) -> list[str]:
        """Every lost request, broken invariant and checker contradiction, prefixed with its level."""
        out = []
        for lv in self.levels:
            if lv.lost:
                out.append(f"concurrency {lv.concurrency}: {lv.lost} requests lost after {MAX_ATTEMPTS} attempts.")
            out += [f"concurrency {lv.concurrency}: {p}" for p in lv.invariant_problems + lv.checker_problems]
        return out


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """p50 and p99 by nearest rank (empty input: zeros)."""
    if not values:
        return {"p50": 0.0, "p99": 0.0}
    ordered = sorted(values)
    return {f"p{p}": ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)] for p in (50, 99)}


def check_bounds(requests: int, levels: Sequence[int], workshops: int) -> None:
    """Refuse sizes outside the drill's bounds, with a message saying which."""
    require_between("--requests", requests, 1, MAX_REQUESTS)
    if not 1 <= len(levels) <= MAX_LEVELS:
        raise LabError(plural("drills.levels", len(levels), most=MAX_LEVELS))
    for level in levels:
        require_between("each concurrency level", level, 1, MAX_CONCURRENCY)
    require_between("--workshops", workshops, 1, MAX_WORKSHOPS)


async def run_load_drill_async(
    requests: int = 2000,
    levels: Sequence[int] = (10, 50, 200),
    workshops: int = 50,
    workdir: str | Path | None = None,
    progress: bool = True,
    seed: int = 0,
) -> LoadReport:
    """The load drill as a coroutine: one dev server, the levels one after the other.

    Without `workdir` the run folder goes to a temporary directory, removed when every level held.
    """
    levels = list(levels)
    check_bounds(requests, levels, workshops)
    folder = DrillFolder.open(workdir, "load-drill-")
    run = folder.run_folder()
    report = LoadReport(requests=requests, workshops=workshops, seed=seed, workdir=run.root)
    rng = random.Random(seed)
    async with serving_async(run, "load-drill.log") as server:
        report.server_start_seconds, report.port = server.healthy_after, server.port
        with progress_bar(total=requests * len(levels), enabled=progress) as bar:
            for index, concurrency in enumerate(levels, start=1):
                bar.set_description(f"concurrency {concurrency}")
                level = LevelReport(concurrency, requests, min(workshops, requests))
                try:
                    await asyncio.wait_for(
                        _run_level(server.base_url, index, level, rng, bar.update), LEVEL_TIMEOUT)
                except TimeoutError:
                    raise LabError("drills.level_timeout", concurrency=concurrency, seconds=round(LEVEL_TIMEOUT),
                                   log=server.log_path) from None
                report.levels.append(level)
    folder.finish(report.ok)
    return report


run_load_drill = blocking(
    run_load_drill_async,
    "Run the load drill (see the module docstring) from plain Python; in a notebook use "
    "`await run_load_drill_async(...)`. Without `workdir` the run folder goes to a temporary directory, removed "
    "when every level held.",
)


async def _run_level(base_url: str, index: int, level: LevelReport, rng: random.Random,
                     advance: Callable[[int], Any]) -> None:
    """Send one level's requests, read the statuses around it, fill in `level`."""
    names = [f"l{index}-c{level.concurrency}-w{i}" for i in range(1, level.workshops + 1)]
    plan: dict[str, list[Decision]] = {name: [] for name in names}
    order: list[tuple[str, Decision]] = []
    for j in range(level.requests):
        name = names[j % len(names)]
        decision = Decision(f"l{index}-{name.rsplit('-', 1)[1]}-r{j + 1}", rng.choice((1, 2)))
        plan[name].append(decision)
        order.append((name, decision))

    limits = httpx.Limits(max_connections=level.concurrency, max_keepalive_connections=level.concurrency)
    async with httpx.AsyncClient(base_url=base_url, timeout=REQUEST_TIMEOUT, limits=limits,
                                 trust_env=False) as client:
        before = await _statuses(client, names)
        gate = asyncio.Semaphore(level.concurrency)
        jitter = random.Random(rng.random())
        origin, cpu = time.perf_counter(), time.process_time()

        async def one(name: str, decision: Decision) -> None:
            async with gate:
                await _reserve(client, name, decision, origin, jitter)
            advance(1)

        await asyncio.gather(*(one(name, decision) for name, decision in order))
        level.seconds = time.perf_counter() - origin
        level.client_cpu_seconds = time.process_time() - cpu
        after = await _statuses(client, names)

    decisions = [decision for _, decision in order]
    level.latency_ms = percentiles([(d.attempts[-1].answered - d.attempts[-1].sent) * 1000 for d in decisions])
    level.end_to_end_ms = percentiles([(d.attempts[-1].answered - d.attempts[0].sent) * 1000 for d in decisions])
    kinds: Counter[str] = Counter()
    for d in decisions:
        first = d.attempts[0]
        if first.error is not None or first.status_code in RETRY_STATUSES:
            kinds[first.error or f"HTTP {first.status_code}"] += 1
    level.first_try_error_kinds = dict(kinds)
    level.first_try_errors = sum(kinds.values())
    level.retries = sum(len(d.attempts) - 1 for d in decisions)
    level.lost = sum(not d.decided for d in decisions)
    level.accepted = sum(d.status_code == 201 for d in decisions)
    level.rejected = sum(d.status_code == 409 for d in decisions)
    level.replayed = sum(d.replayed for d in decisions if d.decided)
    for name in names:
        level.invariant_problems += check_workshop(name, plan[name], before[name], after[name])
        verdict = check_history(plan[name], before[name], after[name])
        if not verdict.ok:
            level.checker_problems.append(f"{name}: {verdict.problem}")


async def _reserve(client: httpx.AsyncClient, workshop: str, decision: Decision, origin: float,
                   jitter: random.Random) -> None:
    """One requestId: try, and retry with the same requestId on a transport error or a 5xx (jittered backoff)."""
    await reserve_with_retries(client, reservations_path(workshop), decision, MAX_ATTEMPTS, origin,
                               backoff=lambda attempt: min(2.0, 0.05 * 2**attempt) * (0.5 + jitter.random()))


async def _statuses(client: httpx.AsyncClient, names: list[str]) -> dict[str, dict[str, Any]]:
    """The durable status of every workshop (a few at a time, retried on transport errors and 5xx)."""
    gate = asyncio.Semaphore(STATUS_CONCURRENCY)

    async def one(name: str) -> dict[str, Any]:
        async with gate:
            problem = ""
            for attempt in range(1, MAX_ATTEMPTS + 1):
                try:
                    response = await client.get(status_path(name))
                except httpx.TransportError as exc:
                    problem = type(exc).__name__
                else:
                    if response.status_code == 200:
                        return response.json()
                    problem = f"HTTP {response.status_code}: {response.text[:120]}"
                    if response.status_code not in RETRY_STATUSES:
                        break
                await asyncio.sleep(doubling_backoff(attempt))
            raise LabError("drills.status_unreadable", name=quoted(name), problem=problem)

    return dict(zip(names, await asyncio.gather(*(one(name) for name in names)), strict=True))


def check_workshop(name: str, decisions: list[Decision], before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The durable totals of one workshop against the answers it gave; an empty list when all hold."""
    problems = [] if is_fresh(before) else [f"{name} was not fresh before the level: {before}."]
    for d in decisions:
        if not d.decided:
            continue
        expected = "accepted" if d.status_code == 201 else "rejected"
        got = (d.body.get("workshop"), d.body.get("requestId"), d.body.get("seats"), d.body.get("status"))
        if got != (name, d.request_id, d.seats, expected):
            problems.append(f"{name}: {d.request_id} (seats {d.seats}, HTTP {d.status_code}) was answered {d.body}.")
    return problems + [f"{name}: {problem}" for problem in answered_totals_problems(decisions, before, after)]


def parse_levels(text: str) -> list[int]:
    """`10,50,200` -> [10, 50, 200] (argparse type)."""
    try:
        levels = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers") from None
    if not levels or any(not 1 <= level <= MAX_CONCURRENCY for level in levels) or len(levels) > MAX_LEVELS:
        raise argparse.ArgumentTypeError(f"give 1 to {MAX_LEVELS} levels, each between 1 and {MAX_CONCURRENCY}")
    return levels



def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `drill load`; the command runs `main`."""
    parser.add_argument("--requests", type=bounded_int(1, MAX_REQUESTS), default=2000,
                        help="distinct requestIds per concurrency level (default 2000)")
    parser.add_argument("--concurrency", type=parse_levels, default=[10, 50, 200],
                        help="comma-separated concurrency levels: requests in flight at most (default 10,50,200)")
    parser.add_argument("--workshops", type=bounded_int(1, MAX_WORKSHOPS), default=50,
                        help="fresh workshops per level the requests are spread over (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the seat counts and the retry jitter")
    add_workdir_option(parser)
    add_progress_option(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run the drill from parsed arguments and print the table; 0 only if nothing was lost and every verdict held."""
    report = run_load_drill(args.requests, args.concurrency, args.workshops, args.workdir,
                            progress=not args.no_progress, seed=args.seed)
    print(f"load drill: {report.requests} requests per level over {report.workshops} workshops, seats 1-2 "
          f"(seed {report.seed}), one wrangler dev (healthy after {report.server_start_seconds:.1f} s), "
          f"up to {MAX_ATTEMPTS} attempts per requestId; latencies in ms")
    print(report.table())
    for level in report.levels:
        if level.first_try_error_kinds:
            kinds = ", ".join(f"{kind} x{n}" for kind, n in sorted(level.first_try_error_kinds.items()))
            print(f"concurrency {level.concurrency}: first-try errors {kinds}; {level.replayed} final answers "
                  f"were replays of an attempt that had taken effect")
    for problem in report.problems()[:20]:
        print(f"  - {problem}")
    print(f"run folder: {report.workdir}{removed_note(bool(args.workdir), report.ok)}")
    print("load drill: " + ("PASS" if report.ok else "FAIL") + f", {report.lost} requests lost")
    return 0 if report.ok else 1
