"""The lab's files in the cells: `%%lab_file <path>` writes a cell's text into the run folder.

The cells' text is generated from the one source (worker/src/*.js, the config template), so the notebook shows
exactly what the lab writes; what runs afterwards is the run folder's copy, i.e. the learner's edit. Configs are
parsed (JSONC) and get this run's Worker name and, in cloud mode, the account ID, which is never printed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reservation_lab.domain.config import cleanup_config_text, write_cleanup_config_text, write_wrangler_config
from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import LabError
from reservation_lab.exercises.catalog import exercise, exercises
from reservation_lab.i18n import message, quoted
from reservation_lab.paths import WORKER_DIR, WORKER_SRC
from reservation_lab.runtime.commands import shown_folder

CONFIGS = ("wrangler.jsonc", "wrangler.cleanup.jsonc")
SOURCES = ("src/validation.js", "src/front.js", "src/index.js", "src/cleanup.js")
EXERCISE_FILES = tuple(f"exercises/{task.file_name}" for task in exercises().values())  # the exercises' files
MAGIC = "lab_file"


def cell_text(target: str, language: str = "en") -> str:
    """The text a `%%lab_file target` cell carries, from the one source (an exercise's Worker with its task
    comments in `language`)."""
    if target == "wrangler.jsonc":
        return (WORKER_DIR / "wrangler.jsonc").read_text()
    if target == "wrangler.cleanup.jsonc":
        return cleanup_config_text()
    if target in SOURCES:
        return (WORKER_SRC / Path(target).name).read_text()
    if target in EXERCISE_FILES:
        return exercise(Path(target).stem).stub(language)
    raise LabError("errors.not_a_lab_file", target=quoted(target), files=", ".join(CONFIGS + SOURCES + EXERCISE_FILES))


def write_lab_file(run: RunFolder, target: str, text: str, account_id: str | None = None) -> Path:
    """Write one lab file of the run from a cell's text; configs get the run's name (and account ID)."""
    if target == "wrangler.jsonc":
        return write_wrangler_config(run, account_id, text=text)
    if target == "wrangler.cleanup.jsonc":
        return write_cleanup_config_text(run, text, account_id)
    if target in SOURCES or target in EXERCISE_FILES:
        path = run.root / target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path
    raise LabError("errors.not_a_lab_file", target=f"%%{MAGIC} {target}",
                   files=", ".join(CONFIGS + SOURCES + EXERCISE_FILES))


def register(shell: Any, current_session: Callable[[], Any]) -> None:
    """Register `%%lab_file` in an IPython shell; `current_session()` gives the session whose run the cell writes
    into (with its account ID and language), None before the setup cell."""

    def lab_file(line: str, cell: str) -> None:
        target = line.strip()
        session = current_session()
        if session is None:
            raise NameError("name 'run' is not defined", name="run")
        run = session.run
        write_lab_file(run, target, cell, session.account_id)
        print(message("lines.file_written", session.language, path=target, lines=len(cell.splitlines()),
                      folder=shown_folder(run.root)))

    shell.register_magic_function(lab_file, magic_kind="cell", magic_name=MAGIC)
