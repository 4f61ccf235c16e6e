"""`./lab mark`: a folder with a correct, a wrong, a crashing and a tampered learner notebook gives the right table;
one learner's failure does not touch another's grade."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from reservation_lab.authoring.builder import EXERCISES, notebook_path
from reservation_lab.course.files import MAGIC
from reservation_lab.exercises.catalog import exercise, exercise_number, exercises
from reservation_lab.i18n.catalog import template
from reservation_lab.teaching.marking import tampered_cells
from tests.support import english_lines, output_text

GRADES = [f"grade_{name}" for name in exercises()]


def submission(folder: Path, learner: str, edit) -> None:
    """The German exercises notebook as a learner hands it in, after `edit(cells by id)`."""
    nb = nbformat.read(notebook_path("de", EXERCISES), as_version=4)
    edit({cell.id: cell for cell in nb.cells})
    nbformat.write(nb, folder / f"{learner}.ipynb")


def solved(cells: dict) -> None:
    for name in exercises():
        cells[f"file-{name}"].source = f"%%{MAGIC} exercises/{exercise(name).file_name}\n{exercise(name).solution()}"


def crashes(cells: dict) -> None:
    solved(cells)
    cells["hint-replay"].source = 'raise RuntimeError("my own experiment")'


def tampers(cells: dict) -> None:
    cells["grade-guard"].source = "grade_guard = None"


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("submissions")
    submission(folder, "ana", solved)
    submission(folder, "ben", lambda cells: None)  # the stubs as shipped
    submission(folder, "cleo", crashes)
    submission(folder, "dan", tampers)
    command = [sys.executable, "-m", "reservation_lab", "mark", str(folder), "--language", "de", "--jobs", "2",
               "-p", "workloads", "3", "-p", "grade_seconds", "3"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return folder / "marked", proc.stdout


def test_the_table_says_who_passed_what(marked: tuple[Path, str]) -> None:
    out, shown = marked
    rows = {row["learner"]: row for row in csv.DictReader((out / "marks.csv").open())}
    assert {name: rows[name]["status"] for name in rows} == {"ana": "marked", "ben": "marked", "cleo": "crashed",
                                                             "dan": "tampered"}
    assert [rows["ana"][label] for label in GRADES] == ["1"] * len(GRADES)
    assert [rows["ben"][label] for label in GRADES] == ["0"] * len(GRADES)
    assert rows["cleo"]["grade_guard"] == "1" and rows["cleo"]["grade_naive"] == ""  # stopped after exercise 2
    assert rows["dan"]["detail"] == "grade-guard" and [rows["dan"][label] for label in GRADES] == [""] * len(GRADES)
    assert "ana" in shown and "✓" in shown and "✗" in shown and str(out / "marks.csv") in shown


def test_the_json_keeps_every_check_with_what_was_expected_and_found(marked: tuple[Path, str]) -> None:
    out, _ = marked
    results = {result["learner"]: result for result in json.loads((out / "marks.json").read_text())}
    ben = {check["label"]: check for check in results["ben"]["checks"]}
    assert ben["grade_guard"] == {"label": "grade_guard", "passed": False, "expected": "passed",
                                  "actual": "overbooking"}
    assert ben["grade_init"]["actual"] == "reset_on_restart"
    assert results["cleo"]["detail"].startswith("In [")
    assert (out / "ana" / "ana.ipynb").exists() and not (out / "dan").exists()  # a tampered notebook never runs


def test_the_solved_notebook_reads_german_and_leaves_nothing_running(marked: tuple[Path, str]) -> None:
    """ana's executed notebook: every grade says passed in German, no English line, the grading server gone."""
    out, _ = marked
    cells = {cell.id: cell for cell in nbformat.read(out / "ana" / "ana.ipynb", as_version=4).cells
             if cell.cell_type == "code"}
    for name in exercises():
        shown = output_text(cells[f"grade-{name}"])
        key = "exercises.grade_passed_client" if exercise(name).client else "exercises.grade_passed"
        # the sentence up to its first count (a translation may put the seconds or the workloads first)
        passed = re.split(r"\{(?!name\}|number\})", template(key, "de"))[0].format(name=name,
                                                                                  number=exercise_number(name))
        assert any(line.startswith(passed) for line in shown.splitlines()) and english_lines(shown) == [], shown
    assert '"processesLeft": 0' in output_text(cells["stop-grading"])


def test_an_unchanged_notebook_is_not_tampered_and_an_edited_check_cell_is() -> None:
    reference = nbformat.read(notebook_path("de"), as_version=4)
    assert tampered_cells(reference, reference) == []
    edited = nbformat.read(notebook_path("de"), as_version=4)
    check = next(cell for cell in edited.cells if "nbval-check-output" in cell.metadata.get("tags", []))
    check.source = check.source.replace("check_equal", "print")
    assert tampered_cells(edited, reference) == [check.id]


def test_an_empty_folder_says_what_to_put_there(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "reservation_lab", "mark", str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode != 0 and "*.ipynb" in proc.stderr


def test_the_readme_names_the_folder_a_teachers_run_writes() -> None:
    """`./lab mark` without --out writes beside the submissions in MARKED: the README and --help say that folder."""
    from reservation_lab.cli import MARKED, parser
    from reservation_lab.paths import REPO_ROOT

    readme = (REPO_ROOT / "README.md").read_text()
    assert f"`SUBMISSIONS/{MARKED}/marks.csv`" in readme and "SUBMISSIONS/graded" not in readme
    mark = parser()._subparsers._group_actions[0].choices["mark"]  # type: ignore[union-attr]
    assert f"SUBMISSIONS/{MARKED}" in mark.format_help().replace("\n", " ").replace("  ", " ")
