"""What the course notebooks show: small display and bookkeeping helpers behind the cells."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reservation_lab.domain.burst import Decision
from reservation_lab.domain.config import RunFolder, create_run_folder, redacted
from reservation_lab.domain.invariants import decision_table, totals_after
from reservation_lab.errors import (
    DevServerError,
    InvariantError,
    LabError,
    PortBusyError,
    ToolchainError,
    WranglerError,
)
from reservation_lab.i18n.messages import (
    FRIENDLY_DEV_SERVER,
    FRIENDLY_INVARIANT,
    FRIENDLY_LAB_ERROR,
    FRIENDLY_NAME,
    FRIENDLY_PORT_BUSY,
    FRIENDLY_TOOLCHAIN,
    FRIENDLY_WRANGLER,
    SERVER_READY,
    SKIPPED_LOGIN,
    SKIPPED_STEP,
    WAITING_FOR_SERVER,
    text,
)
from reservation_lab.paths import REPO_ROOT, WORKER_SRC
from reservation_lab.race.demo import Race
from reservation_lab.race.plots import label, plot_bursts
from reservation_lab.runtime.devserver import DevServer, start_dev_server
from reservation_lab.runtime.toolchain import pinned_wrangler_version
from reservation_lab.runtime.wrangler import run_wrangler

__all__ = [
    "pinned_wrangler_version", "prepare_run", "shown_path", "print_json", "skip_cloud", "show_config",
    "show_source", "wrangler_version", "start_server", "show_decisions", "decision_of", "totals_after",
    "write_report", "show_race", "plot_race", "friendly_errors", "friendly_traceback", "LAB_NAMES",
]

_SERVERS: dict[Path, DevServer] = {}
_LANGUAGE = {"current": "en"}  # the notebook's language, set by friendly_errors(); used for progress lines

# Every name the course's code cells define (parameters, imports, results). A NameError for one of them means
# a cell was run before the cell that defines it; tests/test_friendly.py keeps this list in step with cells.yml.
LAB_NAMES = frozenset({
    "LabClient", "account_id", "account_name", "after_logout", "after_restart", "app_url", "atomic_history",
    "burst_size",
    "check_burst", "check_equal", "check_history", "client", "cloud", "cloud_after", "cloud_before", "cloud_client",
    "cloud_decisions", "cloud_summary", "config_path", "decisions", "delete_worker", "deploy", "deployment",
    "dry_run", "durable_view", "expected_late", "expected_summary", "explain", "final_status", "first", "history",
    "identity", "json", "lab", "language", "late", "login", "logout", "naive_history", "node_tests", "port",
    "port_is_free", "race", "race_naive_and_atomic", "redeployed", "replay", "report", "run", "run_node_tests",
    "send_burst", "server", "status_after_burst", "status_after_restart", "status_before", "summary", "sys",
    "verify", "version", "wait_until_ready", "whoami", "workdir", "workshop", "write_cleanup_config",
    "write_wrangler_config",
})

# Most specific first: the first matching class picks the sentence.
_FRIENDLY_SENTENCES: tuple[tuple[type[BaseException], dict[str, str]], ...] = (
    (ToolchainError, FRIENDLY_TOOLCHAIN),
    (PortBusyError, FRIENDLY_PORT_BUSY),
    (DevServerError, FRIENDLY_DEV_SERVER),
    (WranglerError, FRIENDLY_WRANGLER),
    (LabError, FRIENDLY_LAB_ERROR),
    (InvariantError, FRIENDLY_INVARIANT),
)
_RED, _RESET = "\x1b[1;31m", "\x1b[0m"


def prepare_run(workdir: str | Path = "") -> RunFolder:
    """This run's own folder: `.runs/<run name>` by default, or the given workdir.

    Re-running the setup cell starts a new run on purpose: the run's SQLite state is durable, so reusing it
    would make a second pass of the notebook meet a full workshop and fail the burst invariants. What must
    not survive is the previous run's server, so every `wrangler dev` this kernel started through
    start_server() is stopped first (the new run starts its own).
    """
    while _SERVERS:
        _, previous = _SERVERS.popitem()
        previous.stop()
    return create_run_folder(workdir or None)


def friendly_traceback(error: BaseException, language: str) -> list[str] | None:
    """The short traceback a notebook shows for a lab error: one sentence in `language`, then the original
    `Type: message`. None for errors the lab does not explain (they keep IPython's full traceback)."""
    if isinstance(error, NameError):
        name = getattr(error, "name", None)
        if name not in LAB_NAMES:
            return None
        sentence = text(FRIENDLY_NAME, language, name=name)
    else:
        catalog = next((c for kind, c in _FRIENDLY_SENTENCES if isinstance(error, kind)), None)
        if catalog is None:
            return None
        sentence = text(catalog, language)
    return [f"{_RED}{sentence}{_RESET}", f"{type(error).__name__}: {error}"]


def friendly_errors(language: str) -> bool:
    """Show lab errors in the notebook as one sentence in `language` plus the original message, no traceback.

    Registers an IPython custom exception handler for LabError, InvariantError and NameError (only for the
    names the course defines: "run the cells above first"). The cell still fails: the handler sends a real
    `error` output (with the short traceback), so Run All stops there and papermill and nbval fail loudly.
    `%tb` still prints the full traceback. Calling it again replaces the handler. Also remembers `language`
    for the helpers' progress lines. Returns False outside IPython (nothing to install).
    """
    _LANGUAGE["current"] = language
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False

    def handler(shell: Any, etype: type[BaseException], value: BaseException, tb: Any, tb_offset: Any = None):
        sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # for %tb
        sys.last_exc = value
        stb = friendly_traceback(value, language)
        if stb is None:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        shell._showtraceback(etype, value, stb)  # the same call IPython's showtraceback() ends in
        return stb

    shell.set_custom_exc((LabError, InvariantError, NameError), handler)
    return True


def shown_path(path: Path) -> str:
    """A path as shown in a notebook: relative to the repository when inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def print_json(data: Any) -> None:
    """Print data as indented JSON (dataclasses via their dict)."""
    if hasattr(data, "as_dict"):
        data = data.as_dict()
    print(json.dumps(data, indent=2, ensure_ascii=False))


def skip_cloud(step: int | str, language: str) -> None:
    """Say in one line, in the notebook's language, that a cloud step was skipped and why."""
    print(text(SKIPPED_LOGIN, language) if step == "login" else text(SKIPPED_STEP, language, step=step))


def show_config(path: Path) -> None:
    """Print a wrangler config with the account ID hidden."""
    print_json(redacted(json.loads(Path(path).read_text())))


def show_source(*names: str) -> None:
    """Show Worker source files `worker/src/<name>`, each highlighted under its file name."""
    from IPython.display import Code, Markdown, display

    for name in names:
        display(Markdown(f"`worker/src/{name}`"), Code(filename=str(WORKER_SRC / name), language="javascript"))


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
    progress = _ServerProgress(_LANGUAGE["current"]) if _in_kernel() else None
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
        self._show(text(WAITING_FOR_SERVER, self.language, seconds=seconds))

    def done(self, seconds: float) -> None:
        if self.handle is not None:
            self._show(text(SERVER_READY, self.language, seconds=seconds))


def show_decisions(decisions: Iterable[Decision]) -> None:
    """One line a request, sorted by requestId: HTTP status, decision, reserved after it."""
    for row in decision_table(decisions):
        retry = f"  ({row['attempts']} attempts)" if row["attempts"] > 1 else ""
        print(f"{row['requestId']:<24} {row['http']}  {row['status']:<9} reserved={row['reserved']}{retry}")


def decision_of(decisions: Iterable[Decision], request_id: str) -> Decision:
    """The decision for one requestId of a burst."""
    for decision in decisions:
        if decision.request_id == request_id:
            return decision
    raise KeyError(f"{request_id} was not part of the burst")


def show_race(race: Race, language: str) -> None:
    """The race in numbers: answers, confirmed seats and the durable counter, per Worker."""
    print(f"{'':<40} {label('accepted', language):>10} {label('rejected', language):>10} "
          f"{label('seats', language):>8} {'reserved':>8}")
    for key, burst in (("naive", race.naive), ("atomic", race.atomic)):
        facts = burst.facts()
        print(f"{label(key, language):<40} {facts['accepted']:>10} {facts['rejected']:>10} "
              f"{facts['acceptedSeats']:>8} {facts['durableReserved']:>8}")


def plot_race(race: Race, language: str) -> None:
    """Show the naive and the atomic burst as timelines side by side."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    fig = plot_bursts({label("naive", language): race.naive.decisions,
                       label("atomic", language): race.atomic.decisions}, language)
    display(fig)
    plt.close(fig)


def write_report(run: RunFolder, **data: Any) -> dict[str, Any]:
    """Write report.json into the run folder (read by `./lab run`) and return it."""
    report = {"run": run.name, **data}
    (run.root / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
