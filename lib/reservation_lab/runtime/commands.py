"""Every process the course starts, shown first as the line a learner would type: `[<folder>] $ <command>`.

The shown command is the seeds' form (`npx wrangler …`, `NODE_NO_WARNINGS=1 node …`), with paths relative to
the folder it runs in, so pasting it into a terminal opened there does the same thing. Showing is off by default
(scripts, tests, drills: `QUIET`) and on in a notebook kernel's session (its `Context`, runtime.context).
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from reservation_lab.paths import REPO_ROOT
from reservation_lab.runtime.context import QUIET, Context


def shown_folder(folder: Path) -> str:
    """A folder as shown in a command line: relative to the repository root when inside it."""
    folder = Path(folder).resolve()
    try:
        relative = folder.relative_to(REPO_ROOT)
    except ValueError:
        return str(folder)
    return str(relative) if relative.parts else "."


def relative_args(args: Sequence[str], cwd: Path) -> list[str]:
    """Arguments with absolute paths inside `cwd` written relative to it (what a learner types there)."""
    resolved = Path(cwd).resolve()
    out = []
    for arg in args:
        path = Path(arg)
        inside = path.is_absolute() and path.resolve().is_relative_to(resolved)
        out.append(str(path.resolve().relative_to(resolved)) if inside else arg)
    return out


def command_line(cwd: Path, words: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """`[<folder>] $ [VAR=value ...] <words>`, quoted for a POSIX shell."""
    prefix = "".join(f"{name}={shlex.quote(value)} " for name, value in (env or {}).items())
    return f"[{shown_folder(cwd)}] $ {prefix}{shlex.join(words)}"


_PRINTING = threading.Lock()


def announce(cwd: Path, words: Sequence[str], env: Mapping[str, str] | None = None, cloud: bool = False,
             ctx: Context = QUIET) -> str:
    """Print the command line (when `ctx` shows commands) and return it; a `cloud` command carries its mark."""
    line = command_line(cwd, words, env)
    if ctx.show_commands:
        shown = f"{ctx.mark} {line}" if cloud and ctx.mark else line
        with _PRINTING:  # servers started at once (the race) announce from two threads: one whole line each
            sys.stdout.write(shown + "\n")
            sys.stdout.flush()
    return line


def wrangler_words(*args: str) -> list[str]:
    """What a learner types for `wrangler <args>`: the pinned wrangler through npx."""
    return ["npx", "wrangler", *args]
