"""classroom.learner under faults: a kernel killed mid-burst and a server stopped by the hub, beside a learner who
passes; nothing of the first two is left."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import nbformat
import psutil
import pytest

from reservation_lab.classroom.drill import left_behind, measure
from reservation_lab.classroom.hub import LocalHub
from reservation_lab.classroom.learner import Learner
from reservation_lab.paths import NOTEBOOKS_DIR
from reservation_lab.runtime.ports import port_is_free
from reservation_lab.runtime.processes import environment_of, live_processes
from reservation_lab.runtime.waiting import wait_until

pytestmark = pytest.mark.slow
NO_EXPERIMENTS = {"experiments": False}


def code_cell_index(cell_id: str) -> int:
    notebook = nbformat.read(NOTEBOOKS_DIR / "de" / "concurrent-reservations.ipynb", as_version=4)
    return [c.id for c in notebook.cells if c.cell_type == "code"].index(cell_id)


def processes_of(home: Path) -> list[int]:
    """Live processes whose HOME is this learner's home (their server, kernel, wrangler, workerd)."""
    return [p.pid for p in live_processes()
            if environment_of(p.pid).get("HOME", "").startswith(str(home)) and "jupyterhub " not in p.cmdline]


def test_a_killed_kernel_and_a_stopped_server_leave_the_other_learners_untouched(tmp_path: Path) -> None:
    """Three learners at once, all on the default workshop name: one's kernel is SIGKILLed mid-burst, another's
    server is stopped by the hub at the same cell; the third passes every check, and within seconds nothing of the
    other two is left (their wrangler dev and workerd follow their kernels)."""
    burst = code_cell_index("burst")
    with LocalHub(tmp_path / "hub") as hub:
        killed, stopped, other = (Learner(hub.api, f"learner-0{n}", "de", "launch-day", NO_EXPERIMENTS)
                                  for n in (1, 2, 3))
        for learner in (killed, stopped):
            learner.watch_cell, learner.cell_started = burst, asyncio.Event()

        async def kill_during_the_burst() -> None:
            await killed.cell_started.wait()
            server = psutil.Process(killed.outcome.server_pid)
            kernel = next(p for p in server.children(recursive=True) if "ipykernel" in " ".join(p.cmdline()))
            os.kill(kernel.pid, signal.SIGKILL)

        async def stop_during_the_burst() -> None:
            await stopped.cell_started.wait()
            await asyncio.to_thread(hub.api.stop_server, "learner-02")

        async def together() -> tuple:
            return await asyncio.gather(measure(hub.api, killed), stopped.run(), measure(hub.api, other),
                                        kill_during_the_burst(), stop_during_the_burst())

        dead, halted, untouched, *_ = asyncio.run(together())
        assert not dead.outcome.passed and dead.outcome.failed_cell == burst and "kernel died" in dead.outcome.error
        assert not halted.passed and halted.failed_cell == burst
        assert untouched.outcome.passed, untouched.outcome.error  # same workshop name, its own state
        for name, everything in (("learner-01", False), ("learner-02", True)):  # a stopped server: all of it goes
            home = tmp_path / "hub" / "home" / name
            assert wait_until(lambda home=home, everything=everything: left_of(home, everything) == [], 20,
                              interval=0.5), left_of(home, everything)
    assert left_behind(tmp_path) == [] and port_is_free(hub.port)


def left_of(home: Path, everything: bool) -> list[int]:
    """The learner's processes still alive: every one, or only wrangler and workerd (a killed kernel's server stays)."""
    return [p for p in processes_of(home) if everything or "wrangler" in cmdline(p) or "workerd" in cmdline(p)]


def cmdline(pid: int) -> str:
    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
        return ""
