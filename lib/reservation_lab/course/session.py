"""The kernel's run: its folder, its dev servers (one per run folder, stopped before a new one), progress lines."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from reservation_lab.cloud.cleanup import cleanup_words, runs_left_deployed
from reservation_lab.course.cloud_mode import stop_rehearsal
from reservation_lab.course.experiments import close_all as close_experiments
from reservation_lab.course.files import register as register_lab_file
from reservation_lab.domain.config import RunFolder, create_run_folder
from reservation_lab.i18n import current_language, message
from reservation_lab.runtime.commands import show_commands
from reservation_lab.runtime.devserver import DevServer, start_dev_server
from reservation_lab.runtime.wrangler import run_wrangler

_SERVERS: dict[Path, DevServer] = {}
_CURRENT: dict[str, RunFolder | None] = {"run": None}


def current_run() -> RunFolder | None:
    """The run the last prepare_run() created in this kernel."""
    return _CURRENT["run"]


def prepare_run(workdir: str | Path = "") -> RunFolder:
    """This run's own folder: `.runs/<run name>` by default, or the given workdir.

    Re-running the setup cell starts a new run on purpose: the run's SQLite state is durable, so reusing it
    would make a second pass of the notebook meet a full workshop and fail the burst invariants. What must
    not survive is the previous run's server, so every `wrangler dev` this kernel started through
    start_server() is stopped first (the new run starts its own).
    In a notebook kernel it also shows every command it runs (`[<folder>] $ npx wrangler …`) and registers the
    `%%lab_file` cell magic, which writes the lab's files into this run's folder.
    """
    while _SERVERS:
        _, previous = _SERVERS.popitem()
        previous.stop()
    close_experiments()
    stop_rehearsal()
    run = create_run_folder(workdir or None)
    _CURRENT["run"] = run
    for earlier in runs_left_deployed():  # a failed cloud run of this checkout left a Worker behind
        print(left_deployed_line(earlier))
    if _in_kernel():
        from IPython import get_ipython

        show_commands(True)
        register_lab_file(get_ipython(), current_run)
    return run


def left_deployed_line(root: Path, language: str | None = None) -> str:
    """The sentence naming a run that may have left a Worker in the account, with its cleanup command."""
    return message("cloud.left_deployed", language, run=root.name, command=shlex.join(cleanup_words(root)))


def wrangler_version(run: RunFolder) -> str:
    """The version the pinned wrangler reports (`wrangler --version`)."""
    result = run_wrangler("--version", cwd=run.root, echo=None, timeout=60)
    return result.output.strip().splitlines()[-1].strip()


def start_server(run: RunFolder, port: int = 0, log_name: str = "dev.log") -> DevServer:
    """Start `wrangler dev` for the run; a server this kernel still runs for the run is stopped first.

    In a notebook the wait for /health shows one line, updated in place ("waiting for wrangler dev … 1.6 s").
    """
    previous = _SERVERS.pop(run.root, None)
    if previous is not None:
        previous.stop()
    progress = _ServerProgress(current_language()) if _in_kernel() else None
    server = start_dev_server(run, port=port, log_name=log_name, progress=progress)
    _SERVERS[run.root] = server
    if progress is not None:
        progress.done(server.healthy_after)
    return server


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (where display updates reach a notebook)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class _ServerProgress:
    """One output line that shows how long the wait for wrangler dev has taken so far."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.handle: Any = None

    def _show(self, line: str) -> None:
        from IPython.display import display

        if self.handle is None:
            self.handle = display({"text/plain": line}, raw=True, display_id=True)
        else:
            self.handle.update({"text/plain": line}, raw=True)

    def __call__(self, seconds: float) -> None:
        self._show(message("lines.waiting_for_server", self.language, seconds=seconds))

    def done(self, seconds: float) -> None:
        if self.handle is not None:
            self._show(message("lines.server_ready", self.language, seconds=seconds))
