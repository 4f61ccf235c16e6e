"""Process groups: list their live members, end them completely."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path


def group_members(pgid: int) -> list[int]:
    """PIDs of live (non-zombie) processes in process group pgid, read from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the parenthesised command: state ppid pgrp ...
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def stop_process_group(pgid: int, proc: subprocess.Popen | None = None, grace: float = 10.0) -> bool:
    """TERM the group, wait until no member is left, KILL what remains; True if TERM sufficed."""
    graceful = True
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while _alive(pgid, proc) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pgid, proc):
        graceful = False
        _signal_group(pgid, signal.SIGKILL)
        deadline = time.monotonic() + grace
        while _alive(pgid, proc) and time.monotonic() < deadline:
            time.sleep(0.05)
    if proc is not None:
        proc.wait(timeout=grace)
    return graceful


def kill_process_group(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGKILL the group that proc leads (started with start_new_session); return when no member is left."""
    _signal_group(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + grace
    while _alive(proc.pid, proc) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.wait()


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _alive(pgid: int, proc: subprocess.Popen | None) -> bool:
    if proc is not None:
        proc.poll()  # reap the leader so it does not linger as a zombie
    return bool(group_members(pgid))
