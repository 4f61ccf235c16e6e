"""The exercises as an nbgrader course: the teacher's source, and nbgrader's own generate_assignment and autograde on
one submission, offline (the submission's Workers run on a real wrangler dev, as in the learner's notebook)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from reservation_lab.authoring.builder import EXERCISES, notebook_path
from reservation_lab.exercises.catalog import exercises
from reservation_lab.i18n import message
from reservation_lab.jupyter.kernelspec import ensure_kernel
from reservation_lab.teaching.nbgrader_course import (
    ASSIGNMENT,
    BEGIN,
    CLOSE,
    END,
    OPEN,
    teacher_source,
    write_course,
)
from tests.support import with_environment_bin

NAMES = list(exercises())


def code_lines(text: str) -> list[str]:
    """The lines that are not blank (nbgrader leaves an empty line where a solution region was)."""
    return [line for line in text.split("\n") if line.strip()]


@pytest.mark.parametrize("name", NAMES)
def test_the_teacher_file_is_the_solution_with_the_learner_version_in_a_comment(name: str) -> None:
    """As the teacher's file runs: the solution, the learner's version set aside (a JavaScript comment; a Python
    string statement for the client)."""
    comment = "#" if exercises()[name].client else "//"
    lines = teacher_source(exercises()[name]).split("\n")
    opened = lines.index(next(line for line in lines if line.strip() == OPEN[comment]))
    closed = next(i for i, line in enumerate(lines) if i > opened and line.strip() == CLOSE[comment])
    marks = (f"{comment} {BEGIN}", f"{comment} {END}")
    as_run = [line for line in lines[:opened] + lines[closed + 1:] if line.strip() not in marks]
    assert as_run == exercises()[name].solution().split("\n")


def test_the_command_line_writes_a_course_and_refuses_an_unknown_parameter(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "reservation_lab", "nbgrader", str(tmp_path), "--language", "pt"]
    wrote = subprocess.run([*command, "-p", "workloads", "5"], capture_output=True, text=True, timeout=120)
    assert wrote.returncode == 0, wrote.stderr
    nb = nbformat.read(tmp_path / "source" / ASSIGNMENT / EXERCISES.file_name, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all("nbgrader" in cell.metadata for cell in code)
    assert 'language = "pt"' in code[0].source and "workloads = 5" in code[0].source
    assert code[0].metadata["nbgrader"]["locked"], "the graded budget is the teacher's"
    assert "c.ClearSolutions.code_stub" in (tmp_path / "nbgrader_config.py").read_text()

    refused = subprocess.run([*command, "-p", "workload", "5"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert "Unknown notebook parameter(s): workload" in refused.stderr and "Traceback" not in refused.stderr


def nbgrader(*args: str, cwd: Path) -> str:
    # nbgrader runs `alembic` from PATH (its gradebook's migrations).
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=600, env=with_environment_bin())
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "ERROR" not in run.stdout + run.stderr, run.stderr[-3000:]  # e.g. a config file it could not load
    return run.stdout + run.stderr


def file_cells(nb: nbformat.NotebookNode) -> dict[str, str]:
    return {cell.id: cell.source for cell in nb.cells if cell.id.startswith("file-")}


def test_nbgrader_releases_the_learner_notebook_and_autogrades_a_submission(tmp_path: Path) -> None:
    ensure_kernel()
    course = tmp_path / "course"
    write_course(course, "es", {"workloads": 1, "grade_seconds": 30, "workdir": str(tmp_path / "run")})

    nbgrader("generate_assignment", ASSIGNMENT, cwd=course)
    released = nbformat.read(course / "release" / ASSIGNMENT / EXERCISES.file_name, as_version=4)
    learner = nbformat.read(notebook_path("es", EXERCISES), as_version=4)
    assert {cell_id: code_lines(source) for cell_id, source in file_cells(released).items()} == {
        cell_id: code_lines(source) for cell_id, source in file_cells(learner).items()}, \
        "the released file cells must be the learner's wrong Workers, without the solutions"
    graded = {cell.id: cell.metadata["nbgrader"]["points"] for cell in released.cells
              if cell.metadata.get("nbgrader", {}).get("grade")}
    assert graded == {f"grade-{name}": 1 for name in NAMES}

    # One learner: every Worker repaired (the reference solutions) but one that does not even build (init).
    submitted = course / "submitted" / "ana" / ASSIGNMENT
    submitted.mkdir(parents=True)
    for cell in released.cells:
        if cell.id.startswith("file-"):
            name = cell.id.removeprefix("file-")
            first = cell.source.split("\n", 1)[0]
            body = "this is not JavaScript {" if name == "init" else exercises()[name].solution()
            cell.source = f"{first}\n{body}"
    nbformat.write(released, submitted / EXERCISES.file_name)

    nbgrader("autograde", ASSIGNMENT, cwd=course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {f"grade-{name}": gradebook.find_grade(f"grade-{name}", "exercises", ASSIGNMENT, "ana").score
                  for name in NAMES}
    assert scores == {**{f"grade-{name}": 1 for name in NAMES}, "grade-init": 0}
    autograded = nbformat.read(course / "autograded" / "ana" / ASSIGNMENT / EXERCISES.file_name, as_version=4)
    said = {cell.id: "".join(o.get("text", "") for o in cell.outputs) for cell in autograded.cells
            if cell.cell_type == "code"}
    refused = message("exercises.class_does_not_start", "es", reason="") + "wrangler dev terminó con el código"
    assert refused in said["grade-init"], said["grade-init"]  # in the learner's language, also the reason
    last = autograded.cells[-1]
    assert last.id == "stop-grading" and not [o for o in last.outputs if o.output_type == "error"], \
        "the grading server must end with nothing left"
    shutil.rmtree(tmp_path / "run", ignore_errors=True)
