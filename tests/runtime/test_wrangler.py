"""run_wrangler against the real pinned wrangler: output, failures, its environment and the timeout path."""

from __future__ import annotations

import io
import os
import subprocess
import time
from pathlib import Path

import pytest

from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import LabError, WranglerError
from reservation_lab.runtime.ports import LOOPBACK, free_port
from reservation_lab.runtime.processes import group_members, processes_mentioning
from reservation_lab.runtime.toolchain import pinned_wrangler_version
from reservation_lab.runtime.wrangler import run_wrangler, wrangler_env
from tests.support import raises_key

PINNED = pinned_wrangler_version()


def live_processes_under(folder: Path) -> list[str]:
    """Live processes (other than this one) whose command line or working directory mentions folder."""
    others = [info for info in processes_mentioning(str(folder)) if info.pid != os.getpid()]
    return [f"{info.pid}: {info.cmdline[:160]}" for info in others]


def wait_until_empty(pgid: int, folder: Path, within: float = 5.0) -> tuple[list[int], list[str]]:
    """Poll until the group and the folder have no live process (SIGKILL is delivered asynchronously)."""
    deadline = time.monotonic() + within
    while True:
        members, under = group_members(pgid), live_processes_under(folder)
        if (not members and not under) or time.monotonic() > deadline:
            return members, under
        time.sleep(0.05)


def test_version_is_echoed_and_ok(tmp_path: Path) -> None:
    """`wrangler --version` prints the pinned version to the echo stream and succeeds; logs go to cwd/logs."""
    echo = io.StringIO()
    result = run_wrangler("--version", cwd=tmp_path, echo=echo, timeout=60)
    assert result.ok
    assert result.returncode == 0
    assert result.args == ("--version",)
    assert PINNED in echo.getvalue()
    assert result.output == echo.getvalue()
    assert (tmp_path / "logs").is_dir()


def test_echo_none_still_collects_output(tmp_path: Path) -> None:
    """Without an echo stream the output is still returned."""
    result = run_wrangler("--version", cwd=tmp_path, echo=None, timeout=60)
    assert result.ok
    assert result.output.strip().endswith(PINNED)


def test_failing_subcommand_raises_with_check(tmp_path: Path) -> None:
    """A failing wrangler command raises WranglerError naming the command, its exit code and its last lines."""
    with pytest.raises(WranglerError) as caught:
        run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run", cwd=tmp_path, echo=None, timeout=60)
    message = str(caught.value)
    assert "`wrangler deploy --config does-not-exist.jsonc --dry-run` failed with exit code 1" in message
    assert isinstance(caught.value, LabError)


def test_failure_message_says_what_went_wrong(tmp_path: Path) -> None:
    """The WranglerError message carries wrangler's [ERROR] line."""
    with pytest.raises(WranglerError) as caught:
        run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run", cwd=tmp_path, echo=None, timeout=60)
    assert "Could not read file: does-not-exist.jsonc" in str(caught.value)


def test_failing_subcommand_returns_nonzero_without_check(tmp_path: Path) -> None:
    """check=False returns the failure instead of raising."""
    echo = io.StringIO()
    result = run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run",
                          cwd=tmp_path, echo=echo, timeout=60, check=False)
    assert not result.ok
    assert result.returncode != 0
    assert "does-not-exist.jsonc" in result.output
    assert result.output == echo.getvalue()


def test_wrangler_env_is_quiet_and_logs_inside_the_folder(tmp_path: Path) -> None:
    """No metrics, no tracking, no CF fetch, no banner; the log path is the given folder (created)."""
    log_dir = tmp_path / "run" / "logs"
    env = wrangler_env(log_dir)
    assert env["WRANGLER_SEND_METRICS"] == "false"
    assert env["DO_NOT_TRACK"] == "1"
    assert env["CLOUDFLARE_CF_FETCH_ENABLED"] == "false"
    assert env["WRANGLER_HIDE_BANNER"] == "true"
    assert Path(env["WRANGLER_LOG_PATH"]).is_relative_to(tmp_path / "run")
    assert Path(env["WRANGLER_LOG_PATH"]) == log_dir
    assert log_dir.is_dir()


def test_wrangler_env_keeps_the_environment_and_applies_extras(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's environment is inherited; extras win; os.environ itself is untouched."""
    monkeypatch.setenv("LAB_TEST_MARKER", "kept")
    monkeypatch.setenv("WRANGLER_SEND_METRICS", "true")
    env = wrangler_env(tmp_path, {"EXTRA": "1", "NO_COLOR": "0"})
    assert env["LAB_TEST_MARKER"] == "kept"
    assert env["EXTRA"] == "1"
    assert env["NO_COLOR"] == "0"
    assert env["WRANGLER_SEND_METRICS"] == "false", "the learner's shell must not turn metrics back on"
    assert os.environ["WRANGLER_SEND_METRICS"] == "true"


def test_log_dir_argument_receives_the_wrangler_log(tmp_path: Path) -> None:
    """wrangler's debug log goes into the given log_dir, not into cwd/logs."""
    log_dir = tmp_path / "own-logs"
    run_wrangler("--version", cwd=tmp_path, log_dir=log_dir, echo=None, timeout=60)
    assert list(log_dir.glob("wrangler-*.log")), "wrangler wrote no log into log_dir"
    assert not (tmp_path / "logs").exists()


def test_timeout_raises_and_leaves_no_process(run_folder: RunFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    """`wrangler dev` outliving its timeout is stopped: WranglerError, and no process of its group or folder left."""
    started: list[subprocess.Popen] = []

    class RecordingPopen(subprocess.Popen):
        """The real Popen; it only remembers what it started so the test knows the process group."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            started.append(self)

    monkeypatch.setattr(subprocess, "Popen", RecordingPopen)
    port, inspector = free_port(), free_port()
    echo = io.StringIO()
    began = time.monotonic()
    with raises_key("errors.wrangler_timeout", WranglerError, seconds=4):
        run_wrangler(
            "dev", "--config", str(run_folder.config), "--ip", LOOPBACK, "--port", str(port),
            "--inspector-port", str(inspector), "--persist-to", str(run_folder.state_dir),
            "--show-interactive-dev-session=false",
            cwd=run_folder.root, echo=echo, timeout=4,
        )
    assert time.monotonic() - began < 30
    monkeypatch.undo()
    dev = [proc for proc in started if "dev" in proc.args]
    assert len(dev) == 1, f"expected one wrangler dev process, saw {[proc.args for proc in started]}"
    assert dev[0].returncode is not None, "the wrangler process was not reaped"
    members, under = wait_until_empty(dev[0].pid, run_folder.root)
    assert members == [], f"processes left in the wrangler group: {members}"
    assert under == [], f"processes left in the run folder: {under}"


def test_failure_output_is_plain_text(tmp_path: Path) -> None:
    """What run_wrangler returns and echoes is plain text, fit for a log file or an error message."""
    result = run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run",
                          cwd=tmp_path, echo=None, timeout=60, check=False)
    assert "Could not read file" in result.output
    assert "\x1b[" not in result.output
