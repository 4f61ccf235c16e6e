"""classroom.learner under faults: a kernel killed mid-burst and a server stopped by the hub, beside a learner who
runs Run All in two tabs at once and then as the course tells them; nothing of the first two is left, and every
learner's runs are in their own home."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import nbformat
import psutil
import pytest

from reservation_lab.classroom.drill import left_behind, measure
from reservation_lab.classroom.hub import LocalHub
from reservation_lab.classroom.learner import Learner
from reservation_lab.i18n import message
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
    server is stopped by the hub at the same cell; within seconds nothing of those two is left (their wrangler dev
    and workerd follow their kernels). The third presses Run All in two tabs of one notebook at once: one kernel
    gets both tabs' cells, and the first cell that would interleave them is refused with the course's sentence in
    their language, the kernel drops the rest; after Restart Kernel and Run All (what the sentence says) every
    check passes. Each learner's run folders are in their own home (deploy/singleuser/start.sh)."""
    burst = code_cell_index("burst")
    with LocalHub(tmp_path / "hub") as hub:
        killed, stopped = (Learner(hub.api, f"learner-0{n}", "de", "launch-day", NO_EXPERIMENTS) for n in (1, 2))
        other = Learner(hub.api, "learner-03", "es", "launch-day", NO_EXPERIMENTS)
        other.tabs = 2
        for learner in (killed, stopped):
            learner.watch_cell, learner.cell_started = burst, asyncio.Event()

        transports: list[str] = []

        async def kill_during_the_burst() -> None:
            server = psutil.Process(killed.outcome.server_pid)
            kernel = next(p for p in server.children(recursive=True) if "ipykernel" in " ".join(p.cmdline()))
            connection = kernel.cmdline()[kernel.cmdline().index("-f") + 1]
            transports.append(json.loads(Path(connection).read_text())["transport"])
            os.kill(kernel.pid, signal.SIGKILL)

        async def stop_during_the_burst() -> None:
            await asyncio.to_thread(hub.api.stop_server, "learner-02")

        async def at_the_burst(learner: Learner, running: asyncio.Task, fault) -> None:
            """The fault once the learner's burst cell begins; nothing if their run ended before it (their outcome
            then says why, and the asserts below show it), never a wait for ever."""
            started = asyncio.create_task(learner.cell_started.wait())
            await asyncio.wait({started, running}, return_when=asyncio.FIRST_COMPLETED)
            started.cancel()
            if learner.cell_started.is_set():
                await fault()

        async def together() -> tuple:
            runs = [asyncio.create_task(run) for run in (measure(hub.api, killed), stopped.run(),
                                                         measure(hub.api, other))]
            await asyncio.gather(at_the_burst(killed, runs[0], kill_during_the_burst),
                                 at_the_burst(stopped, runs[1], stop_during_the_burst))
            return tuple(await asyncio.gather(*runs))

        dead, halted, untouched = asyncio.run(together())
        assert not dead.outcome.passed and dead.outcome.failed_cell == burst and "kernel died" in dead.outcome.error, (
            dead.outcome.error)
        assert transports == ["ipc"]  # socket files: no TCP port of a kernel to lose to another learner's process
        # the hub stops a server in its own time: on a loaded machine a few short cells after the burst still ran
        assert not halted.passed and halted.failed_cell is not None and halted.failed_cell >= burst
        assert untouched.outcome.passed, untouched.outcome.error  # same workshop name, its own state
        refused = [error for tab in untouched.outcome.tab_errors for _, error in tab if error != "aborted"]
        assert len(refused) == 1 and refused[0].startswith("LabError: "), untouched.outcome.tab_errors
        assert message("errors.two_clients", "es") in refused[0]
        # the refused tab's later cells were dropped (the other tab's too, unless it had already run them all)
        refused_tab = next(tab for tab in untouched.outcome.tab_errors if any(e != "aborted" for _, e in tab))
        first = next(i for i, e in refused_tab if e != "aborted")
        assert [i for i, _ in refused_tab] == list(range(first, first + len(refused_tab)))
        assert all(e == "aborted" for i, e in refused_tab if i != first)
        homes = tmp_path / "hub" / "home"
        # the tabs' Run All (one setup cell, or two when the second tab's ran before the refusal) and the last one
        assert len(list((homes / "learner-03" / ".reservation-lab" / ".runs").glob("labex-*"))) in (2, 3)
        for name in ("learner-01", "learner-02"):  # their one setup cell made their one run: in their home
            assert len(list((homes / name / ".reservation-lab" / ".runs").glob("labex-*"))) == 1
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


def test_the_course_source_names_a_branch_nbgitpuller_can_clone_also_from_a_detached_checkout(tmp_path: Path) -> None:
    """A CI checkout is often a detached HEAD: a local branch at that commit is named (nbgitpuller would guess
    `origin/main`, which a local clone lacks, and every learner would fall back to a copy); none there: None."""
    import subprocess

    from reservation_lab.classroom.learner import course_source

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=tmp_path,
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "course")
    for n in (1, 2):
        git("commit", "-q", "--allow-empty", "-m", f"c{n}")
    assert course_source(tmp_path) == (str(tmp_path), "course")
    git("checkout", "-q", "--detach", "HEAD")
    assert course_source(tmp_path) == (str(tmp_path), "course")
    git("checkout", "-q", "--detach", "HEAD~1")  # no branch points here
    assert course_source(tmp_path) == (str(tmp_path), None)
