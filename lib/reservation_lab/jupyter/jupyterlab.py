"""JupyterLab for the course: on the learner's own copies of the notebooks, loopback only, no update or news checks,
and terminals that can redo the lab.

`./lab jupyter` never opens the committed notebooks (`notebooks/<lang>/*.ipynb`): JupyterLab saves an executed
notebook in place (autosave), and those files are the reference outputs nbval checks in CI, the files `git pull` (or
nbgitpuller on a JupyterHub) updates, and nothing a learner's outputs, edits or Cloudflare e-mail belong in. It opens
`workspace/` at the repository root instead (`prepare_workspace`): `workspace/<lang>/<notebook>.ipynb`, a copy of
each committed notebook, made when it is missing (on the first start, and on a later start for a notebook new
upstream) and never overwritten after that: the copy is the learner's work. To start a notebook afresh, delete its
copy; the next start copies the course's version again.

The name: a folder of its own, git-ignored (`/workspace/` in .gitignore), named for what it is (where the learner
works) rather than a second `notebooks/` a learner could take for the course's, and beside `notebooks/` rather than
inside it, where pytest's testpaths would hand the learner's copies to nbval. So neither `git status` nor `git pull`
ever meets a learner's file. The Jupyter ecosystem gives the same reason: nbgitpuller merges a learner's edits into
the files it pulls and, where both changed the same lines, keeps the learner's version (its documented "Automatic
Merging Behavior"), so the course's later updates of an executed notebook would be lost; a file the puller does not
track is never merged. The copies need nothing beside them: the notebooks name no file relative to their folder (no
images, no `../` paths; `notebooks/nbval-sanitize.cfg` is CI's), and every run folder is `.runs/<run name>` at the
repository root (reservation_lab.paths), whatever folder the kernel runs in.

A terminal opened in this JupyterLab has the course's `node`, `npm` and `npx` first on PATH and wrangler's offline
settings, so a command a cell announced (`[<folder>] $ npx wrangler …`) does the same thing when pasted there.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from reservation_lab.paths import NOTEBOOKS_DIR, REPO_ROOT
from reservation_lab.runtime.ports import LOOPBACK
from reservation_lab.runtime.toolchain import COMPILE_CACHE, compile_cache_env
from reservation_lab.runtime.wrangler import AGENT_VARIABLES, OFFLINE_ENV, without_agent_markers

VENV_BIN = Path(sys.executable).parent
WORKSPACE_DIR = REPO_ROOT / "workspace"  # git-ignored: the learner's own copies of the notebooks


def course_notebooks(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The committed notebooks, relative to notebooks/: `<lang>/<notebook>.ipynb` (not source/, no checkpoints)."""
    found = (path.relative_to(notebooks_dir) for path in notebooks_dir.glob("*/*.ipynb") if path.is_file())
    return sorted(path for path in found if path.parts[0] != "source" and not path.parts[0].startswith("."))


def prepare_workspace(workspace: Path = WORKSPACE_DIR, notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """Copy every committed notebook that has no copy in `workspace` yet; return the copies made now.

    An existing copy is never written: it is the learner's, whatever it holds. A copy is written beside its place
    and renamed into it, so an interrupted start leaves no half a notebook that later starts would keep."""
    made = []
    for relative in course_notebooks(notebooks_dir):
        copy = workspace / relative
        if copy.exists() or copy.is_symlink():
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        partial = copy.with_name(f".{copy.name}.partial")
        shutil.copyfile(notebooks_dir / relative, partial)
        os.replace(partial, copy)
        made.append(copy)
    return made


def workspace_line(workspace: Path, made: Sequence[Path]) -> str:
    """The one line `./lab jupyter` prints before JupyterLab starts: where the learner's copies are."""
    shown = f"{workspace.relative_to(REPO_ROOT)}/" if workspace.is_relative_to(REPO_ROOT) else f"{workspace}/"
    new = f" ({len(made)} copied now)" if made else ""
    return (f"JupyterLab opens your own copies of the notebooks in {shown}{new}; the course's originals in "
            "notebooks/ stay untouched (delete a copy to get the course's version again at the next start).")


def terminal_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment JupyterLab (and so each of its terminals) runs with: offline wrangler settings, Node's compile
    cache (runtime.toolchain), the course's PATH, and none of the variables that make wrangler act for a coding agent
    (runtime.wrangler.AGENT_VARIABLES: it would register a workers.dev subdomain without asking)."""
    env = without_agent_markers(compile_cache_env(os.environ if base is None else base))
    env.update(OFFLINE_ENV)
    env["PATH"] = os.pathsep.join([str(VENV_BIN), env.get("PATH", "")])
    return env


def terminal_rc() -> Path:
    """The bash start-up file of the course's terminals: the learner's ~/.bashrc, then the course's PATH, wrangler's
    offline settings and Node's compile cache again (a login shell's /etc/profile or a ~/.bashrc may reset PATH)."""
    lines = ['[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"',
             f"export PATH={shlex.quote(str(VENV_BIN))}:\"$PATH\"",
             *(f"export {name}={shlex.quote(value)}" for name, value in OFFLINE_ENV.items()),
             f'[ -n "${{NODE_COMPILE_CACHE:-}}" ] || export NODE_COMPILE_CACHE={shlex.quote(str(COMPILE_CACHE))}',
             "unset " + " ".join(sorted(AGENT_VARIABLES))]
    rc = Path(sys.prefix) / "share" / "reservation-lab" / "terminal.bashrc"
    rc.parent.mkdir(parents=True, exist_ok=True)
    header = "# Written by reservation_lab.jupyter.jupyterlab for JupyterLab's terminals.\n"
    rc.write_text(header + "\n".join(lines) + "\n")
    return rc


def jupyter_argv(extra: Sequence[str] = (), root_dir: Path = WORKSPACE_DIR) -> list[str]:
    """`jupyter lab` on 127.0.0.1, opened on the learner's workspace/, with nothing fetched from the internet, and
    terminals that run bash with the course's node/npx first on PATH."""
    root_flag = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    shell = {"shell_command": ["bash", "--init-file", str(terminal_rc()), "-i"]}
    return [str(VENV_BIN / "jupyter"), "lab", "--ip", LOOPBACK, "--no-browser", *root_flag,
            f"--ServerApp.root_dir={root_dir}", f"--ServerApp.terminado_settings={json.dumps(shell)}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=None", *extra]


def workspace_argv(extra: Sequence[str] = (), workspace: Path = WORKSPACE_DIR,
                   notebooks_dir: Path = NOTEBOOKS_DIR) -> list[str]:
    """Prepare the workspace, say where it is (one line), and return the `jupyter lab` command opened on it."""
    made = prepare_workspace(workspace, notebooks_dir)
    print(workspace_line(workspace, made), flush=True)  # flushed: execve drops Python's buffers
    return jupyter_argv(extra, root_dir=workspace)


def launch(extra: Sequence[str] = ()) -> None:
    """Replace this process by JupyterLab on the learner's workspace (what `./lab jupyter` runs)."""
    argv = workspace_argv(extra, WORKSPACE_DIR, NOTEBOOKS_DIR)
    os.execve(argv[0], argv, terminal_env())
