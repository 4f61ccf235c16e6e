"""The commands a notebook announces are the lab itself: pasted into bash in their folder, they do the same thing.

The shared German run (tests/conftest.py: papermill, run folder in .runs/, so folders are shown relative to the
repository); then every announced local command is run verbatim with bash, in the announced folder, with the
environment a JupyterLab terminal of `./lab jupyter` has, and must do what the notebook did.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx
import pytest

from reservation_lab.jupyter.jupyterlab import terminal_env
from reservation_lab.paths import REPO_ROOT
from reservation_lab.runtime.ports import free_port, port_is_free
from reservation_lab.runtime.processes import group_members, stop_process_group
from reservation_lab.runtime.redact import redact
from reservation_lab.runtime.toolchain import pinned_wrangler_version
from reservation_lab.runtime.waiting import wait_until
from tests.conftest import GERMAN_WORKSHOP, CourseRun

ANNOUNCED = re.compile(r"^\[(?P<folder>[^\]]+)\] \$ (?P<command>.+)$", re.M)


@pytest.fixture(scope="module")
def announced(german_run: CourseRun) -> list[tuple[Path, str]]:
    """(folder, command) of every command the shared German run announced, in order."""
    assert german_run.returncode == 0, german_run.stderr[-3000:]
    nb = german_run.notebook
    text = "\n".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs)
    return [(REPO_ROOT / m["folder"], m["command"]) for m in ANNOUNCED.finditer(text)]


def bash(folder: Path, command: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "--noprofile", "--norc", "-c", command], cwd=folder, env=terminal_env(),
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def one(announced: list[tuple[Path, str]], pattern: str) -> tuple[Path, str]:
    matches = [(folder, command) for folder, command in announced if re.fullmatch(pattern, command)]
    assert matches, f"no announced command matches {pattern!r}: {[c for _, c in announced]}"
    return matches[0]


def test_the_notebook_announces_every_local_command_in_the_seeds_form(announced) -> None:
    commands = [command for _, command in announced]
    assert "npx wrangler --version" in commands
    assert any(c.startswith("NODE_NO_WARNINGS=1 node --experimental-loader") for c in commands)
    assert any(c.startswith("npx wrangler deploy --dry-run") for c in commands)
    assert sum(c.startswith("npx wrangler dev ") for c in commands) >= 4  # race (2), step 3, step 4
    folders = {str(folder.relative_to(REPO_ROOT)) for folder, _ in announced}
    runs = {folder for folder in folders if re.fullmatch(r"\.runs/labex-c10-o03-[0-9a-f]{12}", folder)}
    assert len(runs) == 1 and folders <= runs | {f"{next(iter(runs))}/experiments"}, folders
    assert all(redact(command) == command for command in commands)


def test_wrangler_version_pasted(announced) -> None:
    folder, command = one(announced, r"npx wrangler --version")
    result = bash(folder, command)
    assert result.returncode == 0 and pinned_wrangler_version() in result.stdout, result.stdout + result.stderr


def test_node_tests_pasted_test_the_run_folders_worker(announced) -> None:
    folder, command = one(announced, r"NODE_NO_WARNINGS=1 node .*")
    result = bash(folder, command)
    assert result.returncode == 0 and "# fail 0" in result.stdout, result.stdout[-2000:]


def test_dry_run_pasted_bundles_the_worker(announced) -> None:
    folder, command = one(announced, r"npx wrangler deploy --dry-run .*")
    result = bash(folder, command)
    assert result.returncode == 0 and "--dry-run: exiting now." in result.stdout + result.stderr
    assert "transactionSync" in (folder / "dist" / "index.js").read_text()


def test_dev_pasted_serves_health_on_the_announced_port(announced) -> None:
    folder, command = one(announced, r"npx wrangler dev --config wrangler\.jsonc .*")
    # The ports were picked minutes ago, when the notebook ran; if another process holds one now (a learner's other
    # program, or a second test run on the machine: run 5 of a five-run series once met exactly that), a pasted
    # command fails with wrangler's "Address already in use" for reasons outside the lab. Such a port is swapped
    # for a free one, visibly; everything else is pasted verbatim.
    for flag in ("--port", "--inspector-port"):
        taken = int(re.search(rf"{flag} (\d+)", command).group(1))
        if not port_is_free(taken):
            command = command.replace(f"{flag} {taken}", f"{flag} {free_port()}")
    port = int(re.search(r"--port (\d+)", command).group(1))
    log = folder / "logs" / "pasted-dev.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(["bash", "--noprofile", "--norc", "-c", command], cwd=folder, env=terminal_env(),
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        def healthy() -> bool:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/health", trust_env=False, timeout=2).json() == {
                    "status": "ok"}
            except (httpx.HTTPError, ValueError):
                return proc.poll() is not None  # stop waiting if it exited
        assert wait_until(healthy, 90, interval=0.2) and proc.poll() is None, log.read_text()[-3000:]
        status = httpx.get(f"http://127.0.0.1:{port}/workshops/{GERMAN_WORKSHOP}/status", trust_env=False).json()
        assert status["reserved"] == 4, "the pasted dev server serves the notebook's durable state"
    finally:
        stop_process_group(proc.pid, proc)
    assert group_members(proc.pid) == []
