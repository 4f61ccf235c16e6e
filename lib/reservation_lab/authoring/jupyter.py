"""JupyterLab for the course: loopback only, no update or news checks, and terminals that can redo the lab.

A terminal opened in this JupyterLab has the course's `node`, `npm` and `npx` first on PATH and wrangler's offline
settings, so a command a cell announced (`[<folder>] $ npx wrangler …`) does the same thing when pasted there.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from reservation_lab.paths import NOTEBOOKS_DIR
from reservation_lab.runtime.ports import LOOPBACK
from reservation_lab.runtime.wrangler import OFFLINE_ENV

VENV_BIN = Path(sys.executable).parent


def terminal_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment JupyterLab (and so each of its terminals) runs with."""
    env = dict(os.environ if base is None else base)
    env.update(OFFLINE_ENV)
    env["PATH"] = os.pathsep.join([str(VENV_BIN), env.get("PATH", "")])
    return env


def terminal_rc() -> Path:
    """The bash start-up file of the course's terminals: the learner's ~/.bashrc, then the course's PATH and
    wrangler's offline settings again (a login shell's /etc/profile or a ~/.bashrc may reset PATH)."""
    lines = ['[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"',
             f"export PATH={shlex.quote(str(VENV_BIN))}:\"$PATH\"",
             *(f"export {name}={shlex.quote(value)}" for name, value in OFFLINE_ENV.items())]
    rc = Path(sys.prefix) / "share" / "reservation-lab" / "terminal.bashrc"
    rc.parent.mkdir(parents=True, exist_ok=True)
    header = "# Written by reservation_lab.authoring.jupyter for JupyterLab's terminals.\n"
    rc.write_text(header + "\n".join(lines) + "\n")
    return rc


def jupyter_argv(extra: Sequence[str] = (), root_dir: Path = NOTEBOOKS_DIR) -> list[str]:
    """`jupyter lab` on 127.0.0.1, opened on notebooks/, with nothing fetched from the internet, and terminals
    that run bash with the course's node/npx first on PATH."""
    root_flag = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    shell = {"shell_command": ["bash", "--init-file", str(terminal_rc()), "-i"]}
    return [str(VENV_BIN / "jupyter"), "lab", "--ip", LOOPBACK, "--no-browser", *root_flag,
            f"--ServerApp.root_dir={root_dir}", f"--ServerApp.terminado_settings={json.dumps(shell)}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=None", *extra]


def launch(extra: Sequence[str] = ()) -> None:
    """Replace this process by JupyterLab (what `./lab jupyter` runs)."""
    argv = jupyter_argv(extra)
    os.execve(argv[0], argv, terminal_env())
