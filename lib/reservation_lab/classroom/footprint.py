"""What one learner costs: the memory (PSS), CPU seconds and processes of a process tree, sampled while it runs.

`process_tree(pid)` is a process and all its descendants; `sample(pids)` sums their proportional set size (PSS: a
page shared by n processes counts 1/n in each, so the sum over a tree is what the tree really holds) and their CPU
seconds; `Sampler(pid)` samples a tree in a thread while a `with` block runs and keeps the peaks, the CPU at the end
and the wall time; `run_sampled(command)` runs a command under a Sampler. `machine_memory_used()` is the machine's
figure (MemTotal - MemAvailable), for a whole class on one machine.

Linux only, on purpose: PSS exists in no portable API, so this module reads Linux's process file system itself (the
one module of the package that does; everything else asks psutil). Elsewhere (macOS) every function raises
`UnsupportedPlatform` with a sentence that says so. Standard library only; it imports nothing of the package.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

PROC = Path("/") / "proc"  # Linux's process file system
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
KIB = 1024


class UnsupportedPlatform(RuntimeError):
    """Raised off Linux: there is no process file system to read PSS and CPU ticks from."""


def _check(proc: Path) -> None:
    if proc == PROC and not (sys.platform.startswith("linux") and (proc / "self" / "stat").exists()):
        raise UnsupportedPlatform(
            f"Measuring a footprint reads Linux's process file system (PSS per process), which {sys.platform} does "
            "not have: measure on Linux (or in WSL)."
        )


# ---------------------------------------------------------------------------------------------- one process


@dataclass(frozen=True)
class _Stat:
    """The fields of /proc/<pid>/stat this module uses."""

    pid: int
    name: str  # comm: the executable's name, at most 15 characters
    state: str  # R, S, D, Z (zombie: exited, not reaped yet), ...
    ppid: int
    cpu_ticks: int  # utime + stime: the process itself, all its threads
    children_ticks: int  # cutime + cstime: its children it has reaped (and what they had reaped)
    rss_pages: int


def _read_stat(pid: int, proc: Path) -> _Stat | None:
    """The process's stat line, parsed (None when it is gone or unreadable)."""
    try:
        text = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    head, _, rest = text.rpartition(")")  # the name may hold spaces and parentheses: it ends at the last ')'
    fields = rest.split()  # fields[n - 3] is field n of proc(5)
    try:
        return _Stat(pid, head.partition("(")[2], fields[0], int(fields[1]), int(fields[11]) + int(fields[12]),
                     int(fields[13]) + int(fields[14]), int(fields[21]))
    except (IndexError, ValueError):
        return None


def _all_stats(proc: Path) -> dict[int, _Stat]:
    stats = {}
    for entry in os.scandir(proc):
        if entry.name.isdigit() and (stat := _read_stat(int(entry.name), proc)) is not None:
            stats[stat.pid] = stat
    return stats


def _smaps_rollup(pid: int, proc: Path) -> tuple[int, int] | None:
    """(PSS, RSS) in bytes from /proc/<pid>/smaps_rollup; None when it cannot be read (not ours, gone, old kernel)."""
    try:
        text = (proc / str(pid) / "smaps_rollup").read_text()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("Pss", "Rss"):
            values[key] = int(value.split()[0]) * KIB
    if "Pss" not in values:
        return None
    return values["Pss"], values.get("Rss", 0)


def _argv(pid: int, proc: Path) -> tuple[str, ...]:
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return ()
    return tuple(part.decode(errors="replace") for part in raw.split(b"\0") if part)


# ---------------------------------------------------------------------------------------------- trees and samples


def process_tree(pid: int, *, proc: Path = PROC) -> list[int]:
    """The process and all its live descendants (by the parent pid in each /proc/<pid>/stat), root first.

    [] when the process is gone. A descendant whose parent exited was re-parented (to init or a subreaper) and is no
    longer found here."""
    _check(proc)
    return _tree(pid, _all_stats(proc))


def _tree(root: int, stats: dict[int, _Stat]) -> list[int]:
    if root not in stats:
        return []
    children: dict[int, list[int]] = defaultdict(list)
    for stat in stats.values():
        children[stat.ppid].append(stat.pid)
    order = [root]
    for pid in order:  # breadth first; the list grows while it is walked
        order.extend(sorted(children.get(pid, ())))
    return order


@dataclass(frozen=True)
class ProcessFootprint:
    """One process in a sample."""

    pid: int
    ppid: int
    name: str  # the executable's name (comm)
    argv: tuple[str, ...]
    pss_bytes: int  # PSS, or RSS when memory_source is "rss"
    rss_bytes: int
    cpu_seconds: float  # utime + stime
    memory_source: str  # "pss" (smaps_rollup read) or "rss" (unreadable: the resident size stands in)


@dataclass(frozen=True)
class Sample:
    """A tree at one instant.

    `pss_bytes` sums each live process's PSS (its RSS where smaps_rollup could not be read: `memory_source` says
    "pss" when none fell back, "rss" when all did, "pss+rss" when some did). `cpu_seconds` sums utime + stime of
    every process still in the tree (zombies included) and the cutime + cstime each of them has collected from the
    children it reaped: a child that exited and was reaped by a process of the tree still counts; one re-parented
    away before it exited does not. `processes` counts live (non-zombie) processes."""

    time: float  # time.monotonic()
    pss_bytes: int
    rss_bytes: int
    cpu_seconds: float
    processes: int
    memory_source: str
    members: tuple[ProcessFootprint, ...] = ()


def sample(pids: list[int], *, proc: Path = PROC) -> Sample:
    """Memory and CPU of these processes now; a pid that is gone (or goes while it is read) is left out."""
    _check(proc)
    now = time.monotonic()
    members = []
    ticks = 0
    sources = set()
    for pid in pids:
        stat = _read_stat(pid, proc)
        if stat is None:
            continue
        ticks += stat.cpu_ticks + stat.children_ticks
        if stat.state == "Z":  # exited: no memory, but its CPU (and its reaped children's) is still readable
            continue
        rollup = _smaps_rollup(pid, proc)
        if rollup is None:
            rss = stat.rss_pages * PAGE_SIZE
            pss, source = rss, "rss"
        else:
            (pss, rss), source = rollup, "pss"
        sources.add(source)
        members.append(ProcessFootprint(pid, stat.ppid, stat.name, _argv(pid, proc), pss, rss,
                                        stat.cpu_ticks / CLOCK_TICKS, source))
    source = "pss+rss" if len(sources) == 2 else (sources.pop() if sources else "pss")
    return Sample(now, sum(m.pss_bytes for m in members), sum(m.rss_bytes for m in members), ticks / CLOCK_TICKS,
                  len(members), source, tuple(members))


def machine_memory_used(*, proc: Path = PROC) -> int:
    """Bytes of memory the machine uses now: MemTotal - MemAvailable from /proc/meminfo (page cache not counted)."""
    _check(proc)
    values = {}
    for line in (proc / "meminfo").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("MemTotal", "MemAvailable"):
            values[key] = int(value.split()[0]) * KIB
    return values["MemTotal"] - values["MemAvailable"]


# ---------------------------------------------------------------------------------------------- sampling over time


class Sampler:
    """Samples the tree of `pid` every `interval` seconds in a thread while the `with` block runs.

    Afterwards: `peak_pss_bytes` and `peak` (the sample that held it), `peak_processes`, `cpu_seconds` (the tree's
    CPU at the end: the highest sum seen, the last sample taken when the block ends), `wall_seconds`, `samples` (every
    one, in order), and the machine's memory in use at the start and at its peak (`machine_start_bytes`,
    `machine_peak_bytes`). Sampling a root that exited but is not reaped yet still reads the CPU it collected
    (`run_sampled` waits so). A sampling error in the thread is raised when the block ends."""

    def __init__(self, pid: int, interval: float = 0.25, *, proc: Path = PROC) -> None:
        self.pid = pid
        self.interval = interval
        self.proc = proc
        self.samples: list[Sample] = []
        self.peak: Sample | None = None
        self.peak_pss_bytes = 0
        self.peak_processes = 0
        self.cpu_seconds = 0.0
        self.wall_seconds = 0.0
        self.machine_start_bytes = 0
        self.machine_peak_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"footprint-{pid}", daemon=True)
        self._error: BaseException | None = None
        self._started = 0.0

    def __enter__(self) -> Self:
        _check(self.proc)
        self._started = time.monotonic()
        self.machine_start_bytes = machine_memory_used(proc=self.proc)
        self._tick()
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        self._tick()
        self.wall_seconds = time.monotonic() - self._started
        if self._error is not None and kind is None:
            raise self._error

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._tick()
            except Exception as exc:  # kept, and raised by __exit__
                self._error = exc
                return

    def _tick(self) -> None:
        now = sample(process_tree(self.pid, proc=self.proc), proc=self.proc)
        self.samples.append(now)
        if self.peak is None or now.pss_bytes > self.peak_pss_bytes:
            self.peak, self.peak_pss_bytes = now, now.pss_bytes
        self.peak_processes = max(self.peak_processes, now.processes)
        self.cpu_seconds = max(self.cpu_seconds, now.cpu_seconds)
        self.machine_peak_bytes = max(self.machine_peak_bytes, machine_memory_used(proc=self.proc))


def run_sampled(command: list[str], interval: float = 0.25, timeout: float | None = None,
                **popen: Any) -> tuple[int, Sampler]:
    """Run `command` (subprocess.Popen's keyword arguments pass on) under a Sampler; return (exit code, sampler).

    The last sample is taken after the command exited and before it is reaped, so the CPU of every descendant it
    reaped counts. After `timeout` seconds the command (its process group when `start_new_session=True`) is killed
    and subprocess.TimeoutExpired raised."""
    process = subprocess.Popen(command, **popen)
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        with Sampler(process.pid, interval) as sampler:
            while os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is None:
                if deadline is not None and time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(command, timeout or 0.0)
                time.sleep(0.05)
    except BaseException:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                if popen.get("start_new_session"):
                    os.killpg(process.pid, signal.SIGKILL)
                else:
                    process.kill()
        process.wait()
        raise
    return process.wait(), sampler
