"""What one learner costs: the memory (PSS), CPU seconds and processes of a process tree, sampled while it runs.

`process_tree(pid)` is a process and all its descendants; `sample(pids)` sums their proportional set size (PSS: a
page shared by n processes counts 1/n in each, so the sum over a tree is what the tree really holds) and their CPU
seconds; `Sampler(pid)` samples a tree in a thread while a `with` block runs and keeps the peaks, the CPU at the end
and the wall time; `run_sampled(command)` runs a command under a Sampler. `machine_memory_used()` is the machine's
figure (total - available, as psutil.virtual_memory() reports them), for a whole class on one machine.

Every process fact comes from psutil (Linux, macOS, WSL alike). PSS is Linux's (psutil's `memory_full_info().pss`);
where a process's PSS cannot be had, its USS (private pages only: macOS has no PSS) or else its RSS stands in, and
`memory_source` says which. The CPU of children a process reaped (psutil's `children_user` + `children_system`) is
Linux's too; elsewhere it counts 0. It imports nothing of the package.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import psutil

SOURCES = ("pss", "uss", "rss")  # the order a combination is written in: "pss+rss"
PREFERRED = "pss" if psutil.LINUX else "uss"  # what an empty sample says


# ---------------------------------------------------------------------------------------------- trees and samples


def process_tree(pid: int) -> list[int]:
    """The process and all its descendants (psutil's `children(recursive=True)`, zombies included), root first.

    [] when the process is gone. A descendant whose parent exited was re-parented (to init or a subreaper) and is no
    longer found here."""
    try:
        process = psutil.Process(pid)
        return [pid, *(child.pid for child in process.children(recursive=True))]
    except psutil.ZombieProcess:  # a root that exited and is not reaped yet (it may still hold zombie children)
        return [pid]
    except psutil.NoSuchProcess:
        return []


@dataclass(frozen=True)
class ProcessFootprint:
    """One process in a sample."""

    pid: int
    ppid: int
    name: str  # the executable's name (psutil's name(): not cut at 15 characters as Linux's comm is)
    argv: tuple[str, ...]  # () when not readable
    pss_bytes: int  # PSS, or what memory_source names in its stead
    rss_bytes: int
    cpu_seconds: float  # user + system: the process itself, all its threads
    memory_source: str  # "pss"; "uss" (no PSS here: macOS); "rss" (memory_full_info denied); "none" (nothing read)


@dataclass(frozen=True)
class Sample:
    """A tree at one instant.

    `pss_bytes` sums each live process's PSS (its USS or RSS where PSS could not be read: `memory_source` says
    "pss" when none fell back, "rss" when all did by RSS, "pss+rss" when some did, and so on). `cpu_seconds` sums
    user + system of every process still in the tree (zombies included, where the system lets their CPU be read:
    Linux does) and the children_user + children_system each of them has collected from the children it reaped: a
    child that exited and was reaped by a process of the tree still counts; one re-parented away before it exited
    does not. `processes` counts live (non-zombie) processes."""

    time: float  # time.monotonic()
    pss_bytes: int
    rss_bytes: int
    cpu_seconds: float
    processes: int
    memory_source: str
    members: tuple[ProcessFootprint, ...] = ()


def _memory(process: psutil.Process) -> tuple[int, int, str]:
    """(PSS or what stands in for it, RSS, its source) of a live process."""
    try:
        full = process.memory_full_info()
    except psutil.AccessDenied:  # PSS and USS need more than RSS does (on Linux: ptrace access to the process)
        try:
            rss = process.memory_info().rss
        except psutil.AccessDenied:
            return 0, 0, "none"
        return rss, rss, "rss"
    pss = getattr(full, "pss", None)
    if pss is not None:
        return pss, full.rss, "pss"
    return full.uss, full.rss, "uss"


def _argv(process: psutil.Process) -> tuple[str, ...]:
    try:
        return tuple(process.cmdline())
    except psutil.AccessDenied:
        return ()


def _read(pid: int) -> tuple[float, ProcessFootprint | None] | None:
    """(the process's CPU seconds and its reaped children's, its footprint or None for a zombie); None when gone."""
    try:
        process = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None
    cpu = 0.0
    try:
        with process.oneshot():
            try:
                times = process.cpu_times()
            except psutil.AccessDenied:  # another user's process (macOS): its memory may still be readable
                own = 0.0
            else:
                own = times.user + times.system
                cpu = own + getattr(times, "children_user", 0.0) + getattr(times, "children_system", 0.0)
            if process.status() == psutil.STATUS_ZOMBIE:  # exited: no memory, but its CPU (Linux) still counts
                return cpu, None
            pss, rss, source = _memory(process)
            return cpu, ProcessFootprint(pid, process.ppid(), process.name(), _argv(process), pss, rss, own, source)
    except psutil.ZombieProcess:  # a zombie whose CPU cannot be read (macOS), or one that exited while it was read
        return cpu, None
    except psutil.NoSuchProcess:
        return None


def sample(pids: list[int]) -> Sample:
    """Memory and CPU of these processes now; a pid that is gone (or goes while it is read) is left out."""
    now = time.monotonic()
    members = []
    cpu = 0.0
    for pid in pids:
        read = _read(pid)
        if read is None:
            continue
        cpu += read[0]
        if read[1] is not None:
            members.append(read[1])
    sources = {member.memory_source for member in members}
    source = "+".join(name for name in (*SOURCES, "none") if name in sources) or PREFERRED
    return Sample(now, sum(m.pss_bytes for m in members), sum(m.rss_bytes for m in members), cpu, len(members),
                  source, tuple(members))


def machine_memory_used() -> int:
    """Bytes of memory the machine uses now: psutil.virtual_memory()'s total - available (page cache not counted)."""
    memory = psutil.virtual_memory()
    return memory.total - memory.available


# ---------------------------------------------------------------------------------------------- sampling over time


class Sampler:
    """Samples the tree of `pid` every `interval` seconds in a thread while the `with` block runs.

    Afterwards: `peak_pss_bytes` and `peak` (the sample that held it), `peak_processes`, `cpu_seconds` (the tree's
    CPU at the end, since its processes started: the highest sum seen, the last sample taken when the block ends;
    `cpu_seconds_during` counts from the first sample instead), `wall_seconds`, `samples` (every
    one, in order), and the machine's memory in use at the start and at its peak (`machine_start_bytes`,
    `machine_peak_bytes`). Sampling a root that exited but is not reaped yet still reads the CPU it collected
    (`run_sampled` waits so). A sampling error in the thread is raised when the block ends."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid = pid
        self.interval = interval
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
        self._started = time.monotonic()
        self.machine_start_bytes = self.machine_peak_bytes = machine_memory_used()  # the peak includes the start:
        # other processes may free memory before the first tick (a quick test run beside a loaded suite saw it)
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

    @property
    def cpu_seconds_during(self) -> float:
        """CPU seconds the tree used while sampled: `cpu_seconds` less what it had used at the first sample (for a
        tree that was running before the `with` block, such as a learner's server)."""
        return self.cpu_seconds - self.samples[0].cpu_seconds if self.samples else 0.0

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._tick()
            except Exception as exc:  # kept, and raised by __exit__
                self._error = exc
                return

    def _tick(self) -> None:
        now = sample(process_tree(self.pid))
        self.samples.append(now)
        if self.peak is None or now.pss_bytes > self.peak_pss_bytes:
            self.peak, self.peak_pss_bytes = now, now.pss_bytes
        self.peak_processes = max(self.peak_processes, now.processes)
        self.cpu_seconds = max(self.cpu_seconds, now.cpu_seconds)
        self.machine_peak_bytes = max(self.machine_peak_bytes, machine_memory_used())


def _exited(pid: int) -> bool:
    """Whether our child `pid` exited, without reaping it (so its CPU and its reaped children's can still be read)."""
    if hasattr(os, "waitid"):  # Python has no os.waitid on macOS
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


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
            while not _exited(process.pid):
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
