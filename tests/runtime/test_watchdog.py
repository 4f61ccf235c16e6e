"""runtime.watchdog: started before the server, it stops the group the parent wrote when the parent's pipe closes,
and, if the parent died before writing it, the groups whose environment carries its marker; nothing else."""

from __future__ import annotations

import os
import subprocess
import sys

from reservation_lab.runtime.processes import is_gone
from reservation_lab.runtime.waiting import wait_until
from reservation_lab.runtime.watchdog import MARKER

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


def sleeper(marker: str) -> subprocess.Popen:
    """A stand-in for a server: its own session (group), the marker in its environment."""
    return subprocess.Popen(SLEEPER, env={**os.environ, MARKER: marker}, start_new_session=True)


def watchdog(marker: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "reservation_lab.runtime.watchdog", marker],
                            stdin=subprocess.PIPE, start_new_session=True)


def test_a_parent_that_dies_before_naming_the_group_still_leaves_nothing() -> None:
    dog, server, other = watchdog("m-1"), sleeper("m-1"), sleeper("m-2")
    try:
        assert dog.stdin is not None
        dog.stdin.close()  # the parent's end closes before it wrote the server's group
        assert dog.wait(timeout=30) == 0
        assert wait_until(lambda: server.poll() is not None, 10), "the marked server is still running"
        assert other.poll() is None, "a server of another watchdog was stopped"
    finally:
        for proc in (server, other):
            proc.kill()
            proc.wait()


def test_the_named_group_is_stopped_when_the_pipe_closes() -> None:
    dog, server = watchdog("m-3"), sleeper("m-3")
    try:
        assert dog.stdin is not None
        dog.stdin.write(f"{server.pid}\n".encode())
        dog.stdin.flush()
        assert dog.poll() is None and server.poll() is None  # the parent lives: both wait
        dog.stdin.close()
        assert dog.wait(timeout=30) == 0
        assert wait_until(lambda: is_gone(server.pid) or server.poll() is not None, 10)
    finally:
        server.kill()
        server.wait()
