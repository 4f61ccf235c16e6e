"""`./lab nbgrader FOLDER`: the exercises notebook as an nbgrader course, for a teacher on JupyterHub.

FOLDER gets `nbgrader_config.py` and `source/reservations/exercises.ipynb`: the learner's exercises notebook of one
language with the metadata nbgrader reads. The file cells are autograded answers whose marked place holds the
reference solution between `BEGIN SOLUTION` and `END SOLUTION`, and after it, in a comment, the wrong code the
learner receives; `nbgrader generate_assignment` removes the solution and the comment marks, so the released
notebook gives the learner the same wrong Worker as notebooks/<lang>/exercises.ipynb. Each grade cell is an
autograder test worth POINTS (it asserts that the grade passed); every other code cell is read-only, so the
parameters (the grader's budget) and the setup are the teacher's. `nbgrader autograde` runs each submission's Worker
on a real `wrangler dev`, as `lab.grade` does in the learner's notebook, with kernels on socket files.

nbgrader is the `teacher` extra (`pip install reservation-lab[teacher]`; `./lab setup` installs it); only this
module imports it.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.preprocessors import Execute

from reservation_lab.authoring.builder import EXERCISES, notebook_path, render
from reservation_lab.course.files import MAGIC
from reservation_lab.course.parameters import EXERCISE_DEFAULTS, check_known, parameters_source
from reservation_lab.exercises.catalog import Exercise, exercises
from reservation_lab.jupyter.socket_kernels import AsyncSocketFileKernelManager

ASSIGNMENT = "reservations"
POINTS = 1  # per exercise
CELL_TIMEOUT = 600  # seconds a cell may run under `nbgrader autograde` (a grade takes up to about a minute)
BEGIN, END = "BEGIN SOLUTION", "END SOLUTION"  # after the language's line comment
# Around the stub's lines in the teacher's file: a comment in JavaScript, a string statement (a no-op) in Python.
KEPT = "the learner's version, which nbgrader keeps:"
OPEN = {"//": f"/* {KEPT}", "#": f'"""{KEPT}'}
CLOSE = {"//": "*/", "#": '"""'}


class SocketFileExecute(Execute):
    """nbgrader's Execute preprocessor with the kernel on socket files (jupyter/socket_kernels.py)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["kernel_manager_class"] = AsyncSocketFileKernelManager
        super().__init__(*args, **kwargs)


def marked_lines(name: str, lines: list[str], comment: str = "//") -> tuple[int, int]:
    """Indices of the `// >>> EXERCISE name: task >>>` and `// <<< EXERCISE name <<<` lines (`#` for a Python file;
    the file's header names both markers too, in a sentence)."""
    start = [i for i, line in enumerate(lines) if line.strip().startswith(f"{comment} >>> EXERCISE {name}: ")]
    end = [i for i, line in enumerate(lines) if line.strip() == f"{comment} <<< EXERCISE {name} <<<"]
    if len(start) != 1 or len(end) != 1 or start[0] >= end[0]:
        raise ValueError(f"exercise {name}: the stub must mark exactly one place (>>> … <<<)")
    return start[0], end[0]


def teacher_source(exercise: Exercise, language: str = "en") -> str:
    """The exercise's file for the teacher: the stub, its marked place holding the solution and, commented out,
    the stub's own lines (what nbgrader keeps for the learner), its task comments in `language`."""
    name, comment = exercise.name, "#" if exercise.client else "//"
    stub, solution = exercise.stub(language).split("\n"), exercise.solution(language).split("\n")
    start, end = marked_lines(name, stub, comment)
    changes = [op for op in difflib.SequenceMatcher(a=stub, b=solution, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if any(i1 <= start or i2 > end for _, i1, i2, _, _ in changes):
        raise ValueError(f"exercise {name}: its solution changes lines outside the marked place")
    tail = len(stub) - end  # the marker line `<<<` and everything after it, the same in both
    solved = solution[start + 1: len(solution) - tail]
    wrong = stub[start + 1: end]
    if any(CLOSE[comment] in line for line in wrong):
        raise ValueError(f"exercise {name}: the stub's marked lines contain {CLOSE[comment]} and cannot be set aside")
    indent = stub[start][: len(stub[start]) - len(stub[start].lstrip())]
    begin, end_ = f"{indent}{comment} {BEGIN}", f"{indent}{comment} {END}"
    region = [begin, *solved, f"{indent}{OPEN[comment]}", end_, *wrong, begin, f"{indent}{CLOSE[comment]}", end_]
    return "\n".join([*stub[: start + 1], *region, *stub[end:]])


def _nbgrader(cell_id: str, *, solution: bool = False, grade: bool = False, locked: bool = False,
              points: int | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"grade": grade, "grade_id": cell_id, "locked": locked, "schema_version": 3,
                            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def teacher_notebook(language: str, parameters: dict[str, Any] | None = None) -> nbformat.NotebookNode:
    """The exercises notebook of `language` with nbgrader's metadata and the solutions in the marked places.

    `parameters` override the parameters cell's defaults (e.g. a smaller `workloads` for a quick autograde).
    """
    nb = nbformat.read(notebook_path(language, EXERCISES), as_version=4)
    check_known(parameters or {}, EXERCISE_DEFAULTS)
    values = {**EXERCISE_DEFAULTS, **(parameters or {})}
    catalog = exercises()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs, cell.execution_count = [], None
        cell_id = cell.id
        if cell_id == "parameters":
            cell.source = parameters_source(language, values)
        kind, _, name = cell_id.partition("-")
        if kind == "file" and name in catalog:
            first = cell.source.split("\n", 1)[0]
            if first != f"%%{MAGIC} exercises/{catalog[name].file_name}":
                raise ValueError(f"cell {cell_id}: unexpected first line {first!r}")
            cell.source = f"{first}\n{teacher_source(catalog[name], language)}"
            cell.metadata["nbgrader"] = _nbgrader(cell_id, solution=True)
        elif kind == "grade" and name in catalog:
            variable = cell_id.replace("-", "_")
            cell.source = f"{cell.source.rstrip()}\nassert {variable}.passed"
            cell.metadata["nbgrader"] = _nbgrader(cell_id, grade=True, locked=True, points=POINTS)
        else:
            cell.metadata["nbgrader"] = _nbgrader(cell_id, locked=True)
    return nb


CONFIG = '''\
# nbgrader's configuration for the reservation lab's exercises ({language}), written by `./lab nbgrader`.
# Run nbgrader in this folder: `nbgrader generate_assignment {assignment}`, then, with the learners' notebooks in
# submitted/<learner>/{assignment}/, `nbgrader autograde {assignment}`.
from nbgrader.converters.autograde import Autograde
from nbgrader.preprocessors import Execute

from reservation_lab.teaching.nbgrader_course import SocketFileExecute

c = get_config()  # noqa: F821 (nbgrader's config loader provides it)
c.CourseDirectory.course_id = "reservation-lab-{language}"
# The marked place of each file cell is JavaScript: nbgrader's Python stub would not build. Its solution region and
# the two comment marks around the learner's version become empty lines.
c.ClearSolutions.code_stub = {{"python": ""}}
# A grade runs a real wrangler dev for up to about a minute; nbgrader's default is 30 s a cell.
c.Execute.timeout = {timeout}
# Kernels on socket files instead of TCP ports (several autogrades at once cannot take each other's ports).
c.Autograde.autograde_preprocessors = [
    SocketFileExecute if step is Execute else step
    for step in Autograde.class_traits()["autograde_preprocessors"].default()
]
'''


def write_course(folder: Path, language: str, parameters: dict[str, Any] | None = None) -> Path:
    """Write FOLDER/nbgrader_config.py and FOLDER/source/<assignment>/exercises.ipynb; return the notebook."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(
        CONFIG.format(language=language, assignment=ASSIGNMENT, timeout=CELL_TIMEOUT))
    source = folder / "source" / ASSIGNMENT / EXERCISES.file_name
    source.parent.mkdir(parents=True, exist_ok=True)
    nb = teacher_notebook(language, parameters)
    nbformat.validate(nb)
    source.write_text(render(nb))
    return source


def describe(folder: Path) -> str:
    """One line for the command line: where the course is and what to run next."""
    return json.dumps({"course": str(folder), "source": str(folder / "source" / ASSIGNMENT),
                       "next": f"cd {folder} && nbgrader generate_assignment {ASSIGNMENT}"})
