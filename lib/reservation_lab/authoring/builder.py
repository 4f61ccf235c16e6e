"""Build the course notebooks (the lab and the exercises, one per language) from one source, and record their
reference outputs.

    ./lab build                 write notebooks/<lang>/concurrent-reservations.ipynb and exercises.ipynb
    ./lab build check           exit 1 if a committed notebook is not in sync
    ./lab build execute [LANG]  run them for real and store scrubbed reference outputs

Each notebook's code cells come from its cells.yml (notebooks/source/ for the lab, notebooks/source/exercises/ for
the exercises) and are identical in every language (only the parameters cell's `language` literal differs; that
cell is written from course.parameters); prose comes from prose/<lang>.md beside the cells.yml.
Adding a language means adding its prose files.
"""

from __future__ import annotations

import ast
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import yaml

from reservation_lab.course.files import MAGIC, cell_text
from reservation_lab.course.friendly import CELL_NAMES
from reservation_lab.course.parameters import DEFAULTS, EXERCISE_DEFAULTS, parameters_source
from reservation_lab.jupyter.kernelspec import DISPLAY_NAME, KERNEL_NAME
from reservation_lab.paths import NOTEBOOKS_DIR, REPO_ROOT
from reservation_lab.runtime.redact import redact

SOURCE_DIR = NOTEBOOKS_DIR / "source"
NOTEBOOK_NAME = "concurrent-reservations.ipynb"
CHECK_TAG = "nbval-check-output"
MARKER = re.compile(r"^<!-- (?P<key>[a-z0-9-]+)(?: @(?P<hash>[0-9a-f]{8}))? -->$")  # a prose section's start; @:
# the fingerprint of the `about:` brief it was written against (authoring/translations.py)
TERMINAL = re.compile(r"^<!-- terminal: ([a-z0-9-]+) -->$", re.MULTILINE)  # a block of notebooks/source/terminal/
KERNELSPEC = {"name": KERNEL_NAME, "display_name": DISPLAY_NAME, "language": "python"}


@dataclass(frozen=True)
class Notebook:
    """One notebook of the course: its file name in notebooks/<lang>/, its source folder, its parameters."""

    file_name: str
    source_dir: Path
    defaults: dict[str, Any]


LAB = Notebook(NOTEBOOK_NAME, SOURCE_DIR, DEFAULTS)
EXERCISES = Notebook("exercises.ipynb", SOURCE_DIR / "exercises", EXERCISE_DEFAULTS)
NOTEBOOKS = (LAB, EXERCISES)


@dataclass(frozen=True)
class Prose:
    """One language's prose: its code, display name and one Markdown text per key."""

    language: str
    name: str
    cells: dict[str, str]


def load_cells(source_dir: Path = SOURCE_DIR, defaults: dict[str, Any] = DEFAULTS) -> list[dict]:
    """The cells of a cells.yml; the parameters cell gets its code from course.parameters (`defaults`)."""
    cells = yaml.safe_load((source_dir / "cells.yml").read_text())
    for cell in cells:
        if "parameters" in cell:
            cell["code"] = parameters_source(defaults["language"], defaults)
            cell["defaults"] = defaults
    return cells


def cell_source(cell: dict, language: str) -> str:
    """A code cell's text: the parameters for `language`, a lab file under its magic, or the cell's code."""
    if "parameters" in cell:
        return parameters_source(language, cell.get("defaults", DEFAULTS))
    if "file" in cell:
        return f"%%{MAGIC} {cell['file']}\n{cell_text(cell['file'], language)}".rstrip("\n")
    return cell["code"].rstrip("\n")


def load_prose(path: Path) -> Prose:
    """Parse a prose file: front matter, then `<!-- key -->` sections."""
    text = path.read_text()
    if not text.startswith("---\n"):
        raise ValueError(f"{path}: missing front matter")
    front, body = text[4:].split("\n---\n", 1)
    meta = yaml.safe_load(front)
    cells: dict[str, str] = {}
    key = None
    lines: list[str] = []
    for line in body.splitlines():
        match = MARKER.match(line)
        if match:
            if key is not None:
                cells[key] = "\n".join(lines).strip()
            key = match["key"]
            if key in cells:
                raise ValueError(f"{path}: prose key {key!r} appears twice")
            lines = []
        elif key is not None:
            lines.append(line)
        elif line.strip():
            raise ValueError(f"{path}: text before the first <!-- key --> marker")
    if key is not None:
        cells[key] = "\n".join(lines).strip()
    return Prose(language=meta["language"], name=meta["name"], cells=cells)


def terminal_block(name: str, source_dir: Path = SOURCE_DIR) -> str:
    """The shell commands of `terminal/<name>.sh` (one source for every language, run by the tests)."""
    return (source_dir / "terminal" / f"{name}.sh").read_text().rstrip("\n")


def with_terminal_blocks(text: str, source_dir: Path = SOURCE_DIR) -> str:
    """Prose with each `<!-- terminal: name -->` line replaced by that block as a ```bash fence."""
    return TERMINAL.sub(lambda m: f"```bash\n{terminal_block(m.group(1), source_dir)}\n```", text)


def languages(source_dir: Path = SOURCE_DIR) -> list[Prose]:
    return [load_prose(path) for path in sorted((source_dir / "prose").glob("*.md"))]


def notebook_path(language: str, notebook: Notebook = LAB) -> Path:
    return NOTEBOOKS_DIR / language / notebook.file_name


def build_notebook(cells: list[dict], prose: Prose, previous: nbformat.NotebookNode | None = None):
    """The notebook for one language; outputs of unchanged code cells are kept from `previous`."""
    keys = [cell["prose"] for cell in cells if "prose" in cell]
    missing = [key for key in keys if key not in prose.cells]
    extra = [key for key in prose.cells if key not in keys]
    if missing or extra:
        raise ValueError(f"prose/{prose.language}.md: missing keys {missing}, unknown keys {extra}")
    kept = {cell.id: cell for cell in previous.cells if cell.cell_type == "code"} if previous else {}
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for cell in cells:
        if "prose" in cell:
            text = with_terminal_blocks(prose.cells[cell["prose"]])
            nb.cells.append(nbformat.v4.new_markdown_cell(text, id=f"md-{cell['prose']}"))
            continue
        source = cell_source(cell, prose.language)
        tags = list(cell.get("tags", []))
        if cell.get("check"):
            tags.append(CHECK_TAG)
        code = nbformat.v4.new_code_cell(source, id=cell["id"])
        code.metadata = {"tags": tags} if tags else {}
        old = kept.get(cell["id"])
        if old is not None and old.source == source:
            code.outputs = old.outputs
        nb.cells.append(code)
    number_cells(nb)
    nbformat.validate(nb)
    return nb


def number_cells(nb) -> None:
    """Execution counts as a fresh Run All gives them, on cells that carry outputs only.

    nbval treats a cell without an execution count as never run and refuses its outputs, so the
    reference cells are numbered by their position among the code cells: deterministic, not a record.
    """
    position = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        position += 1
        cell.execution_count = position if cell.outputs else None
        for output in cell.outputs:
            if "execution_count" in output:
                output.execution_count = cell.execution_count


def render(nb) -> str:
    return nbformat.writes(nb, version=4) + "\n"


def read_existing(path: Path):
    return nbformat.read(path, as_version=4) if path.exists() else None


def cell_names(cells: list[dict]) -> list[str]:
    """Every name the code cells define (assignments, imports; the parameters too), sorted: the friendly errors'
    "run the cells above first" list, computed here so a kernel never reads cells.yml."""
    defined: set[str] = set()
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    for cell in cells:
        if "code" not in cell:
            continue
        for node in ast.walk(compile(cell["code"], cell["id"], "exec", flags=flags)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined.add(node.id)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return sorted(defined)


def build(check_only: bool = False) -> list[Path]:
    """Write every notebook in every language and the cells' names; with check_only, return the files out of
    sync."""
    cells = {notebook.file_name: load_cells(notebook.source_dir, notebook.defaults) for notebook in NOTEBOOKS}
    stale = []
    names = "\n".join(sorted({name for each in cells.values() for name in cell_names(each)})) + "\n"
    if not CELL_NAMES.exists() or CELL_NAMES.read_text() != names:
        stale.append(CELL_NAMES)
        if not check_only:
            CELL_NAMES.write_text(names)
    for notebook in NOTEBOOKS:
        for prose in languages(notebook.source_dir):
            path = notebook_path(prose.language, notebook)
            text = render(build_notebook(cells[notebook.file_name], prose, read_existing(path)))
            if path.exists() and path.read_text() == text:
                continue
            stale.append(path)
            if not check_only:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    return stale


def scrub_text(text: str, workdirs: list[Path]) -> str:
    """Remove secrets and local paths from an output text."""
    for workdir in workdirs:
        text = text.replace(str(workdir), "<workdir>")
    text = text.replace(str(REPO_ROOT), "<repo>")
    return redact(text)


def scrub_outputs(nb, workdirs: list[Path]) -> None:
    """Deterministic, secret-free outputs: positional execution counts, no timing metadata, no local paths."""
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for cell in nb.cells:
        cell.metadata = {"tags": cell.metadata["tags"]} if cell.metadata.get("tags") else {}  # no run metadata
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            if "metadata" in output:
                output.metadata = {}
            if output.output_type == "stream":
                output.text = scrub_text(output.text, workdirs)
            elif "data" in output:
                output.data = {kind: scrub_text(value, workdirs) if isinstance(value, str) else value
                               for kind, value in output.data.items()}
    number_cells(nb)


def execute(language: str, timeout: int = 600, notebook: Notebook = LAB) -> Path:
    """Run one notebook top to bottom for real (local mode) through papermill, like every other execution of the
    course, and store its scrubbed outputs (papermill's own metadata goes with the scrub)."""
    from reservation_lab.jupyter.papermill_engine import execute as run_notebook

    path = notebook_path(language, notebook)
    with tempfile.TemporaryDirectory() as tmp:
        executed = Path(tmp) / path.name
        run_notebook(path, executed, path.parent, log_output=False, execution_timeout=timeout)
        nb = nbformat.read(executed, as_version=4)
    scrub_outputs(nb, [])
    nbformat.validate(nb)
    path.write_text(render(nb))
    return path
