"""Shared bits of the benches: a dev server in a temporary run folder, timing, CPU of a process group, load.

Every bench starts its own `wrangler dev` on a free 127.0.0.1 port, in a run folder under a temporary
directory, and stops it as a whole process group (TERM, then KILL) before it exits; `dev_server()` checks
that no member of the group is left. Nothing here asserts a time: benches print a baseline measured in the
same run and ratios. Lines that start with `ratio ` are the benches' results (the smoke test looks for them).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import statistics
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import psutil

from reservation_lab.domain.routes import reservations_path, status_path
from reservation_lab.domain.runs import temporary_server
from reservation_lab.runtime.devserver import DevServer
from reservation_lab.runtime.processes import group_members
from reservation_lab.runtime.toolchain import find_toolchain

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------- the dev server


@contextmanager
def dev_server(prefix: str = "bench-") -> Iterator[DevServer]:
    """A healthy `wrangler dev` for a fresh run folder in a temporary directory; stopped and proven gone afterwards."""
    with temporary_server(prefix, log_name="dev.log") as server:
        yield server


def cold_start_stop(prefix: str = "bench-cold-") -> tuple[float, float, float]:
    """One cold start of `wrangler dev` in a new run folder: (start→healthy, stop, total) in seconds.

    Only the server is timed: start→healthy as the dev server measured it (from its spawn), the stop including
    the proof that nothing is left; creating and removing the run folder is outside both."""
    with temporary_server(prefix, log_name="dev.log") as server:
        healthy = server.healthy_after
        stop, _ = timed(server.stop_and_prove)
    return healthy, stop, healthy + stop


# ---------------------------------------------------------------------------------------------- timing, output


def timed(work: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call, by time.perf_counter."""
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def ratio(value: float, baseline: float) -> float:
    return value / baseline if baseline else float("inf")


def print_ratio(name: str, value: float, baseline: float, unit: str = "") -> None:
    """The result line format: `ratio <name>: <r>  (<value> / <baseline><unit>)`."""
    print(f"ratio {name}: {ratio(value, baseline):.2f}  ({value:.4g} / {baseline:.4g}{unit})")


def median(values: list[float]) -> float:
    """statistics.median, NaN for no values (a bench that measured nothing still prints its line)."""
    return statistics.median(values) if values else float("nan")


def max_in_flight(intervals: list[tuple[float, float]]) -> int:
    """The most intervals [start, end) that overlap at one instant (an end at t comes before a start at t)."""
    events = sorted([(end, -1) for _, end in intervals] + [(start, 1) for start, _ in intervals])
    current = best = 0
    for _, step in events:
        current += step
        best = max(best, current)
    return best


def load_line(when: str) -> str:
    """The 1/5/15-minute load averages: other work on the machine shows here (benches share the CPUs with it)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {when}: {one:.2f} {five:.2f} {fifteen:.2f} (nproc {os.cpu_count()})"


def machine_line() -> str:
    """nproc, memory, python, node and wrangler versions: the first line every bench prints."""
    memory = psutil.virtual_memory().total
    toolchain = find_toolchain()
    node = subprocess.run([str(toolchain.node), "--version"], capture_output=True, text=True, timeout=30)
    return (f"machine: nproc {os.cpu_count()}, memory {memory / 2**30:.1f} GiB, python {platform.python_version()}, "
            f"node {node.stdout.strip()}, wrangler {toolchain.wrangler_version}")


# ---------------------------------------------------------------------------------------------- CPU of a group


@dataclass(frozen=True)
class ProcessCpu:
    pid: int
    role: str  # "workerd", "node" (wrangler), or the executable's name
    seconds: float  # utime + stime


def process_argv(pid: int) -> list[str]:
    """A live process's argv ([] when it is gone)."""
    try:
        return psutil.Process(pid).cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return []


def process_role(pid: int) -> str:
    argv = process_argv(pid)
    if not argv:
        return "gone"
    name = os.path.basename(argv[0]) or "?"
    return "node" if name.startswith("node") else name


def process_cpu(pid: int) -> float | None:
    """user + system CPU seconds of one process (None when it is gone)."""
    try:
        times = psutil.Process(pid).cpu_times()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None
    return times.user + times.system


def group_cpu(pgid: int) -> dict[int, ProcessCpu]:
    """CPU seconds of every live member of the process group, by pid."""
    snapshot = {}
    for pid in group_members(pgid):
        seconds = process_cpu(pid)
        if seconds is not None:
            snapshot[pid] = ProcessCpu(pid, process_role(pid), seconds)
    return snapshot


def cpu_by_role(before: dict[int, ProcessCpu], after: dict[int, ProcessCpu]) -> dict[str, float]:
    """CPU seconds spent between two snapshots, summed per role (a process new in `after` counts from 0)."""
    spent: Counter[str] = Counter()
    for pid, now in after.items():
        then = before.get(pid)
        spent[now.role] += now.seconds - (then.seconds if then else 0.0)
    return dict(spent)


def machine_cpu() -> tuple[float, float]:
    """(busy, steal) CPU seconds of the whole machine since boot (all cores; steal is 0 where not reported)."""
    times = psutil.cpu_times()
    busy = sum(getattr(times, name, 0.0) for name in ("user", "nice", "system", "irq", "softirq"))
    return busy, getattr(times, "steal", 0.0)


def own_cpu() -> float:
    """CPU seconds of this process and of its reaped descendants (wrk, curl, a notebook kernel...)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class CpuMeter:
    """CPU over a `with` block: the dev server's group, this process with its reaped children, everything else.

    `others` is the machine's busy time minus both: work of other programs sharing the CPUs, which makes a
    figure noisy; `steal` is time the hypervisor gave to other machines. All in % of one core.
    """

    def __init__(self, pgid: int | None = None) -> None:
        self.pgid = pgid
        self.wall = self.server = self.client = self.others = self.steal = 0.0

    def _snapshot(self) -> tuple[float, float, float, float, dict[int, ProcessCpu]]:
        group = group_cpu(self.pgid) if self.pgid else {}
        return (time.perf_counter(), *machine_cpu(), own_cpu(), group)

    def __enter__(self) -> CpuMeter:
        self._before = self._snapshot()
        return self

    def __exit__(self, *exc: object) -> None:
        after = self._snapshot()
        (t0, busy0, steal0, own0, group0), (t1, busy1, steal1, own1, group1) = self._before, after
        self.wall = t1 - t0
        self.server = sum(cpu_by_role(group0, group1).values())
        self.client = own1 - own0
        self.others = max(0.0, (busy1 - busy0) - self.server - self.client)
        self.steal = steal1 - steal0

    def percent(self, seconds: float) -> float:
        return 100 * seconds / self.wall if self.wall else 0.0

    def line(self) -> str:
        return (f"CPU server {self.percent(self.server):3.0f}%  client {self.percent(self.client):3.0f}%  "
                f"others {self.percent(self.others):3.0f}%  steal {self.percent(self.steal):2.0f}%")


# ---------------------------------------------------------------------------------------------- load


@dataclass
class LoadResult:
    """What a fixed-duration load loop did."""

    concurrency: int
    elapsed: float
    statuses: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)

    @property
    def requests(self) -> int:
        return sum(self.statuses.values())

    @property
    def per_second(self) -> float:
        return self.requests / self.elapsed if self.elapsed else 0.0


def reservation_request(tag: str, workshops: int) -> Callable[[int], tuple[str, str, dict | None]]:
    """Request i → POST a 1-seat reservation with a unique requestId to one of `workshops` workshops."""

    def make(i: int) -> tuple[str, str, dict | None]:
        return "POST", reservations_path(f"w{tag}-{i % workshops}"), {"requestId": f"r{tag}-{i}", "seats": 1}

    return make


def health_request(i: int) -> tuple[str, str, dict | None]:
    return "GET", "/health", None


async def _load(base_url: str, concurrency: int, duration: float, make: Callable[[int], tuple]) -> LoadResult:
    counter = itertools.count()
    result = LoadResult(concurrency, 0.0)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0, limits=limits, trust_env=False) as client:

        async def worker() -> None:
            while time.perf_counter() < deadline:
                method, path, body = make(next(counter))
                try:
                    response = await client.request(method, path, json=body)
                except httpx.TransportError as exc:
                    result.errors[type(exc).__name__] += 1
                else:
                    result.statuses[response.status_code] += 1

        started = time.perf_counter()
        deadline = started + duration
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        result.elapsed = time.perf_counter() - started
    return result


def run_load(base_url: str, concurrency: int, duration: float, make: Callable[[int], tuple]) -> LoadResult:
    """Keep `concurrency` requests in flight for `duration` seconds (one asyncio loop, httpx, keep-alive)."""
    return asyncio.run(_load(base_url, concurrency, duration, make))


def touch_workshops(base_url: str, tag: str, workshops: int) -> None:
    """Create the objects `reservation_request(tag, workshops)` will hit (GET status), so a measurement is steady."""
    with httpx.Client(base_url=base_url, timeout=30.0, trust_env=False) as client:
        for i in range(workshops):
            client.get(status_path(f"w{tag}-{i}")).raise_for_status()


def warm_up(base_url: str, make: Callable[[int], tuple], count: int = 20) -> None:
    """A few sequential requests so the first measured one does not pay for compiling the Worker."""
    with httpx.Client(base_url=base_url, timeout=30.0, trust_env=False) as client:
        for i in range(count):
            method, path, body = make(i)
            client.request(method, path, json=body)


# ---------------------------------------------------------------------------------------------- options


@dataclass(frozen=True)
class LoadOptions:
    """Resolved options of a load benchmark."""

    quick: bool
    duration: float
    levels: list[int]
    rounds: int


def load_options(
    argv: list[str] | None, doc: str, duration: tuple[float, float], levels: tuple[list[int], list[int]]
) -> LoadOptions:
    """--quick, --duration, --concurrency, --rounds; `duration` and `levels` are (full, quick) defaults."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{duration[1]:g} s per measurement, concurrency {' '.join(map(str, levels[1]))}")
    parser.add_argument("--duration", type=float, default=None,
                        help=f"seconds per measurement (default {duration[0]:g}, quick {duration[1]:g})")
    parser.add_argument("--concurrency", type=int, nargs="+", default=None,
                        help=f"default {' '.join(map(str, levels[0]))} (quick: {' '.join(map(str, levels[1]))})")
    parser.add_argument("--rounds", type=int, default=None, help="measurements each, alternating (default 2, quick 1)")
    args = parser.parse_args(argv)
    return LoadOptions(args.quick, args.duration or duration[args.quick], args.concurrency or levels[args.quick],
                       args.rounds or (1 if args.quick else 2))
