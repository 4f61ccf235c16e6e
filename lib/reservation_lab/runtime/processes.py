"""Process groups: list their live members, end them completely."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import psutil

from reservation_lab.runtime.waiting import wait_until


@dataclass(frozen=True)
class ProcessInfo:
    """One live process: its pid, process group, command line and working directory."""

    pid: int
    pgid: int
    cmdline: str
    cwd: str


def _live_groups() -> Iterator[tuple[psutil.Process, int]]:
    """Every live (non-zombie) process this user may inspect, with its process group (a status-only scan)."""
    for proc in psutil.process_iter(["status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            pgid = os.getpgid(proc.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied, ProcessLookupError, PermissionError):
            continue
        yield proc, pgid


def live_processes() -> Iterator[ProcessInfo]:
    """Every live (non-zombie) process this user may inspect (psutil: Linux, macOS and other POSIX systems)."""
    for proc, pgid in _live_groups():
        try:
            cmdline = " ".join(proc.cmdline() or [])
            try:
                cwd = proc.cwd()
            except (psutil.AccessDenied, psutil.ZombieProcess):
                cwd = ""
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        yield ProcessInfo(proc.pid, pgid, cmdline, cwd)


def group_members(pgid: int) -> list[int]:
    """PIDs of live (non-zombie) processes in process group pgid (polled while stopping: no cmdline, no cwd)."""
    return [proc.pid for proc, group in _live_groups() if group == pgid]


def this_process_and_its_ancestors() -> set[int]:
    """This process and every process above it (the shell, `timeout`, `nohup` or `time` that started it)."""
    return {proc.pid for proc in [psutil.Process(), *psutil.Process().parents()]}


def environment_of(pid: int) -> dict[str, str]:
    """The environment of a live process ({} when it is gone or not ours to read)."""
    try:
        return psutil.Process(pid).environ()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return {}


def is_gone(pid: int) -> bool:
    """True when no live process has this pid (an unreaped zombie counts as gone)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def processes_mentioning(text: str) -> list[ProcessInfo]:
    """Live processes whose command line or working directory contains `text` (e.g. a run folder)."""
    return [info for info in live_processes() if text in info.cmdline or text in info.cwd]


def stop_process_group(pgid: int, proc: subprocess.Popen | None = None, grace: float = 10.0) -> bool:
    """TERM the group, wait until no member is left, KILL what remains; True if TERM sufficed."""
    _signal_group(pgid, signal.SIGTERM)
    graceful = wait_until(lambda: not _alive(pgid, proc), grace)
    if not graceful:
        _signal_group(pgid, signal.SIGKILL)
        wait_until(lambda: not _alive(pgid, proc), grace)
    if proc is not None:
        proc.wait(timeout=grace)
    return graceful


def kill_process_group(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGKILL the group that proc leads (started with start_new_session); return when no member is left."""
    _signal_group(proc.pid, signal.SIGKILL)
    wait_until(lambda: not _alive(proc.pid, proc), grace, interval=0.02)
    proc.wait()


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _alive(pgid: int, proc: subprocess.Popen | None) -> bool:
    if proc is not None:
        proc.poll()  # reap the leader so it does not linger as a zombie
    return bool(group_members(pgid))
