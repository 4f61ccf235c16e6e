"""Friendly errors: a lab error in a notebook shows as one sentence in its language plus the original message."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from reservation_lab.errors import (
    BurstReplayed,
    DevServerError,
    InvariantError,
    LabError,
    Localized,
    PausedOnPurpose,
    PortBusyError,
    ToolchainError,
    WranglerError,
)
from reservation_lab.i18n import message

# Most specific first: the first matching class picks the headline (a key of the catalog's `friendly` section).
_HEADLINES: tuple[tuple[type[BaseException], str], ...] = (
    (PausedOnPurpose, "friendly.paused"),
    (ToolchainError, "friendly.toolchain"),
    (PortBusyError, "friendly.port_busy"),
    (DevServerError, "friendly.dev_server"),
    (WranglerError, "friendly.wrangler"),
    (LabError, "friendly.lab_error"),
    (BurstReplayed, "friendly.replayed_burst"),
    (InvariantError, "friendly.invariant"),
)
_RED, _BOLD, _RESET = "\x1b[1;31m", "\x1b[1;34m", "\x1b[0m"


CELL_NAMES = Path(__file__).with_name("cell_names.txt")  # written by `./lab build` from notebooks/source/cells.yml


@cache
def lab_names() -> frozenset[str]:
    """Every name the course's code cells define (parameters, the facade, results), as the build computed them.

    A NameError for one of them means a cell was run before the cell that defines it.
    """
    return frozenset(CELL_NAMES.read_text().split())


def friendly_traceback(error: BaseException, language: str, run: Any = None) -> list[str] | None:
    """The short traceback a notebook shows for a lab error, all in `language`: a headline for its kind, then
    `Type: message` with the error's whole message (what happened, what to do). None for errors the lab does
    not explain (they keep IPython's full traceback). The English message stays in str(error) and `%tb`."""
    if isinstance(error, NameError):
        name = getattr(error, "name", None)
        if name not in lab_names():
            return None
        return [f"{_RED}{message('friendly.name', language, name=name)}{_RESET}"]
    headline = next((key for kind, key in _HEADLINES if isinstance(error, kind)), None)
    if headline is None:
        return None
    detail = error.localized(language) if isinstance(error, Localized) else str(error)
    if isinstance(error, PausedOnPurpose):  # not a failure: no red, no cleanup command (it would skip step 6)
        return [f"{_BOLD}{message(headline, language)}{_RESET}", detail]
    return [f"{_RED}{message(headline, language)}{_RESET}", f"{type(error).__name__}: {detail}",
            *cleanup_hint(run, language)]


def cleanup_hint(run: Any, language: str) -> list[str]:
    """After a deploy, a failing cell also says how to delete what `run` (the session's run) left in the account."""
    from reservation_lab.cloud.cleanup import left_deployed, left_deployed_line

    return [left_deployed_line(run.root, language)] if run is not None and left_deployed(run) else []


def friendly_errors(where: Callable[[Any], tuple[str, Any]], shell: Any = None) -> bool:
    """Show lab errors in the notebook as one sentence in the learner's language plus the original message, no
    traceback.

    Registers an IPython custom exception handler for LabError, InvariantError and NameError (only for the
    names the course defines: "run the cells above first"). The cell still fails: the handler sends a real
    `error` output (with the short traceback), so Run All stops there and papermill and nbval fail loudly.
    `%tb` still prints the full traceback. Calling it again replaces the handler. `where(shell)` says, when an
    error is shown, its language and the session's run (with it, a failure after a deploy also names the cleanup):
    the course's kernel installs this at start (course.kernel_extension), so a cell run before the setup cell is
    explained too. Returns False outside IPython (nothing to install).
    """
    if shell is None:
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
        language, run = where(shell)
        stb = friendly_traceback(value, language, run)
        if stb is None:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        shell._showtraceback(etype, value, stb)  # the same call IPython's showtraceback() ends in
        return stb

    shell.set_custom_exc((LabError, InvariantError, NameError), handler)
    return True
