"""The course session: what the setup cell starts and every cell sees.

`session = lab.start(language, workdir)` creates this run's folder and a session that carries everything a helper
needs to know about it, passed explicitly (no other module keeps any of it): its `context` (runtime.context: the
language every helper prints in, whether command lines are shown, the rehearsal's mark and cloud environment), its
check `ledger` and the account it deploys to. It owns everything the notebook starts: the dev servers (one per run
folder), the experiments' workbench, the exercises' grader, the rehearsal's Cloudflare double. `Session.stop()` is
the one place that stops them, and `start()` calls it for the previous session first, so re-running the setup cell
leaves nothing behind (a kernel that dies takes its servers along through their watchdogs). The notebook's cells
keep their short form: `lab.<helper>` passes the current session's context (course.bound)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reservation_lab.cloud.cleanup import left_deployed_line, runs_left_deployed
from reservation_lab.course import two_clients
from reservation_lab.course.files import register as register_lab_file
from reservation_lab.course.friendly import friendly_errors
from reservation_lab.domain.ledger import LEDGER_FILE, Ledger
from reservation_lab.domain.runs import HeldServers, RunFolder, create_run_folder
from reservation_lab.errors import LabError
from reservation_lab.experiments.workbench import Workbench
from reservation_lab.i18n import COURSE_LANGUAGES, REFERENCE, message
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.devserver import DevServer
from reservation_lab.runtime.wrangler import run_wrangler

if TYPE_CHECKING:  # loaded with the first grade (course.exercises), not in every learner's kernel
    from reservation_lab.exercises.grader import Grader


@dataclass
class Session:
    """This run, its context and ledger, and what this session started (stopped together by stop())."""

    run: RunFolder
    context: Context = QUIET  # the language, the command display, the cloud environment
    ledger: Ledger = field(default_factory=Ledger)
    account_id: str | None = None  # the Cloudflare account step 1 chose (never shown)
    servers: HeldServers = field(default_factory=HeldServers)  # one dev server per run folder
    workbenches: dict[Path, Workbench] = field(default_factory=dict)
    grader: Grader | None = None  # the exercises' grading server (course.exercises)
    cloud: bool | str = False
    rehearsal: Any = None  # course.cloud_mode.Rehearsal while cloud = "rehearsal"

    @property
    def language(self) -> str:
        return self.context.language

    def stop(self) -> None:
        """Stop every server, workbench and stand-in this session started; safe to call twice."""
        self.servers.stop_all()  # stopped and proven gone
        while self.workbenches:
            _, workbench = self.workbenches.popitem()
            workbench.close()
        if self.grader is not None:
            self.grader.close()
        if self.rehearsal is not None:
            rehearsal, self.rehearsal = self.rehearsal, None
            rehearsal.stop()


_CURRENT: dict[str, Session | None] = {"session": None}


def start(language: str, workdir: str | Path = "", record_only: bool = False) -> Session:
    """End the previous session, then start this one: its language, its own run folder (`.runs/<run name>` by
    default, or `workdir`), errors shown in the language, and in a notebook every command shown and `%%lab_file`.

    `record_only` (a teacher's run, `./lab mark`): every check is recorded in the run's ledger and a failed one does
    not stop the notebook (domain.ledger). A new run on purpose: the run's SQLite state is durable, so a second pass
    over an old run would meet a full workshop and fail the burst invariants. The setup cell also names any earlier
    run of this checkout that deployed to Cloudflare and was never proven deleted, with the command that deletes it.
    """
    previous = _CURRENT["session"]
    if previous is not None:
        _CURRENT["session"] = None
        previous.stop()
    run = create_run_folder(workdir or None)
    session = Session(run=run, context=Context(language=language, show_commands=_in_kernel()),
                      ledger=Ledger(record_only, run.root / LEDGER_FILE))
    _CURRENT["session"] = session
    friendly_errors(error_language_and_run)  # as the course's kernel did at its start (course.kernel_extension)
    for earlier in runs_left_deployed():
        print(left_deployed_line(earlier, language))
    if _in_kernel():
        from IPython import get_ipython

        register_lab_file(get_ipython(), current_or_none)
        two_clients.install(get_ipython())
    return session


def current() -> Session:
    """The session the setup cell started; a clear error (in the learner's language) before that."""
    session = _CURRENT["session"]
    if session is None:
        raise LabError("errors.no_session")
    return session


def current_or_none() -> Session | None:
    """The session the setup cell started, or None before it (scripts, tests, a cell run too early)."""
    return _CURRENT["session"]


def context() -> Context:
    """The current session's context; QUIET (English, nothing shown, the real environment) before the setup cell."""
    session = _CURRENT["session"]
    return session.context if session is not None else QUIET


def language() -> str:
    """The current session's language (English before the setup cell)."""
    return context().language


def error_language_and_run(shell: Any = None) -> tuple[str, RunFolder | None]:
    """How an error is explained: in the session's language with its run; before the setup cell in the notebook's
    `language` parameter when its cell ran (a course language), else in English."""
    session = _CURRENT["session"]
    if session is not None:
        return session.language, session.run
    chosen = getattr(shell, "user_ns", {}).get("language")
    return (chosen if chosen in COURSE_LANGUAGES else REFERENCE), None


def current_run() -> RunFolder | None:
    """The current session's run, or None before the setup cell."""
    session = _CURRENT["session"]
    return session.run if session is not None else None


def wrangler_version(run: RunFolder) -> str:
    """The version the pinned wrangler reports (`wrangler --version`)."""
    result = run_wrangler("--version", cwd=run.root, echo=None, timeout=60, ctx=context())
    return result.output.strip().splitlines()[-1].strip()


def start_server(run: RunFolder, port: int = 0, log_name: str = "dev.log") -> DevServer:
    """Start `wrangler dev` for the run; a server this session still runs for the run is stopped first.

    In a notebook the wait for /health shows one line, updated in place ("waiting for wrangler dev … 1.6 s").
    """
    session = current()
    session.servers.stop(run.root)
    progress = _ServerProgress(session.language) if _in_kernel() else None
    server = session.servers.start(run.root, run, port=port, log_name=log_name, progress=progress,
                                   ctx=session.context)
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
