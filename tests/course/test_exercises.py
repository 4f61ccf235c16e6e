"""course.exercises: `lab.grade`, `lab.hint`, `lab.stop_grading` in a session, in the learner's language (the whole
exercises notebook runs under papermill in tests/teaching/test_marking.py)."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from reservation_lab import course as lab
from reservation_lab.course.exercises import HINTS, GradeFailed
from reservation_lab.course.files import cell_text, write_lab_file
from reservation_lab.errors import LabError
from reservation_lab.exercises.catalog import exercise, exercise_number, exercises
from reservation_lab.i18n import COURSE_LANGUAGES, message
from tests.support import english_lines, raises_key

LANGUAGES = COURSE_LANGUAGES


@pytest.mark.parametrize("language", LANGUAGES)
def test_hints_add_up_only_when_asked_in_the_learners_language(language: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    lab.start(language, tmp_path / "run")
    for name in exercises():
        lab.hint(name, 0)  # the committed hint cell: Run All shows no hint
        assert capsys.readouterr().out == ""
        for count in range(1, HINTS + 1):
            lab.hint(name, count)
            assert capsys.readouterr().out.splitlines() == [
                f"{n}/{HINTS}: " + message(f"hints.{name}_{n}", language) for n in range(1, count + 1)]
        lab.hint(name, HINTS + 1)
        shown = capsys.readouterr().out.splitlines()
        last = "hints.no_more" if exercise(name).from_the_lab else "hints.no_more_new"  # the lab has no cancel
        assert shown[-1] == message(last, language, name=name) and len(shown) == HINTS + 1
        assert english_lines("\n".join(shown)) == []
    with raises_key("exercises.unknown", name="nope"):
        lab.hint("nope", 1)
    for wrong in (-1, "2", 1.5, True):
        with raises_key("hints.count", LabError, hints=HINTS):
            lab.hint("guard", wrong)
    assert capsys.readouterr().out == ""


def test_no_hint_holds_a_line_of_the_reference_solution() -> None:
    """A hint may point the way, never hand over the code: no run of more than 15 characters (beyond one identifier,
    such as a table's name) of a line the solution adds or moves appears in a hint. The hints this replaced held
    `reserved + ? <= capacity`, `await externalCheck(requestId, seats);` and `ON CONFLICT(singleton) DO NOTHING`."""
    for name in exercises():
        stub, solution = exercise(name).stub().splitlines(), exercise(name).solution().splitlines()
        added = [line[2:].strip() for line in difflib.ndiff(stub, solution) if line.startswith("+ ")]
        assert added, name
        for language in LANGUAGES:
            for n in range(1, HINTS + 1):
                text = message(f"hints.{name}_{n}", language)
                given = [run for line in added if len(run := longest_common_run(line, text)) > 15
                         and not re.fullmatch(r"\w+", run)]
                assert given == [], (name, language, n, given)


def test_no_task_text_holds_a_line_of_the_reference_solution() -> None:
    """A task says what must hold and a request sequence that fails now, never the code: the same rule as for the
    hints over each exercise's prose sections (the task and the grade's introduction) in every language. The
    first version of exercise 1's task held `WHERE reserved + ? <= capacity`. A line the solution must keep (naive's
    `await externalCheck(…)`, which it moves) is part of the task."""
    from reservation_lab.authoring.builder import load_prose
    from reservation_lab.paths import REPO_ROOT

    for language in LANGUAGES:
        prose = load_prose(REPO_ROOT / "notebooks" / "source" / "exercises" / "prose" / f"{language}.md").cells
        for name in exercises():
            stub, solution = exercise(name).stub().splitlines(), exercise(name).solution().splitlines()
            added = [line[2:].strip() for line in difflib.ndiff(stub, solution)
                     if line.startswith("+ ") and line[2:].strip() not in exercise(name).keeps]
            text = prose[name] + "\n" + prose[f"{name}-grade"]
            given = [run for line in added if len(run := longest_common_run(line, text)) > 15
                     and not re.fullmatch(r"\w+", run)]
            assert given == [], (name, language, given)


def longest_common_run(line: str, text: str) -> str:
    match = difflib.SequenceMatcher(None, line, text, autojunk=False).find_longest_match()
    return line[match.a:match.a + match.size].strip()


def test_the_file_cell_writes_the_stub_into_the_run(tmp_path: Path) -> None:
    session = lab.start("de", tmp_path / "run")
    for name, task in exercises().items():
        target = f"exercises/{task.file_name}"
        assert cell_text(target) == exercise(name).stub()
        path = write_lab_file(session.run, target, cell_text(target))
        assert path == session.run.root / target and path.read_text() == exercise(name).stub()


# which workload fails the transfer stub first depends on timing (twins that both book, twins of which the second is
# refused after the first moved it, or a restart whose retry books again), and a search of 8 s on a loaded machine
# may stop before it shrinks to the smallest: its classes and its table's headings are asserted, not its rows
FAILED_GRADES = [("pt", "guard", 1, ("overbooking",), lambda shown: message("exercises.round", "pt", round=1) in shown
                  and message("exercises.why", "pt") in shown
                  and re.search(r'"reserved": ([5-9]|\d\d)', shown) is not None),  # overbooked (5 when shrunk whole)
                 ("es", "transfer", 0, ("seats_not_conserved", "transfer_answer"),
                  lambda shown: message("exercises.transfers_round", "es") in shown
                  and message("exercises.transfer_answers", "es", answers="").strip() in shown)]


@pytest.mark.parametrize(("language", "name", "seed", "kind", "table"), FAILED_GRADES,
                         ids=[name for _, name, *_ in FAILED_GRADES])
def test_a_failed_grade_shows_the_smallest_workload_in_the_learners_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], language: str, name: str, seed: int, kind: tuple[str, ...],
        table) -> None:
    """A stub's grade: its class, the smallest workload's table (the transfer's: its reservations, each transfer and
    every answer) and the checker's words, no English line."""
    session = lab.start(language, tmp_path / "run")
    write_lab_file(session.run, f"exercises/{name}.js", cell_text(f"exercises/{name}.js"))
    result = lab.grade(name, seed=seed, workloads=10, seconds=8)  # the transfer's shrinking restarts: bounded
    assert not result.passed and result.failure is not None and result.failure.kind in kind
    shown = capsys.readouterr().out
    assert shown.startswith(message("exercises.grade_failed", language, name=name, number=exercise_number(name),
                                    problem=result.failure.message))
    assert table(shown) and english_lines(shown) == [], shown
    assert lab.stop_grading() == {"processesLeft": 0, "portFree": True}


def test_a_reference_solution_that_fails_stops_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `solutions = True` a failing grade is a defect of the course: GradeFailed, with its key."""
    from reservation_lab.exercises import catalog

    broken = exercise("init")
    monkeypatch.setattr(catalog.Exercise, "solution",
                        lambda self, language="en": broken.stub() if self.name == "init" else "")
    lab.start("de", tmp_path / "run")
    with raises_key("exercises.grade_failed_short", GradeFailed, name="init", number=4):
        lab.grade("init", solution=True, seed=1, workloads=10, seconds=5)
    assert lab.stop_grading() == {"processesLeft": 0, "portFree": True}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_notebook_shows_no_hint(language: str) -> None:
    """Run All (and so the committed notebook) shows no hint: a hint is shown only when the learner asks for one."""
    import nbformat

    from reservation_lab.paths import REPO_ROOT

    notebook = nbformat.read(REPO_ROOT / "notebooks" / language / "exercises.ipynb", as_version=4)
    hint_cells = {cell.id: cell for cell in notebook.cells if cell.id.startswith("hint-")}
    assert set(hint_cells) == {f"hint-{name}" for name in exercises()}
    assert all(cell.source.endswith(", 0)") and cell.get("outputs") == [] for cell in hint_cells.values())


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_failed_check_is_shown_in_the_learners_language(language: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The naive exercise's failed-check class: the request whose check failed is named as such in the table, and
    the sentence says what the Worker answered; no English line."""
    from reservation_lab.course.exercises import show_grade
    from reservation_lab.exercises.grader import Grade
    from reservation_lab.exercises.judge import Failure, Sent, Trial
    from reservation_lab.exercises.workloads import Request, Round, Workload
    from reservation_lab.i18n import Message

    workload = Workload((Round((Request("check_fails", 0, 1), Request("new", 0, 2))),))
    sent = [Sent(1, "t1-0", "r1-1", 1, "check_fails", '{"requestId": "r1-1", "seats": 1}', 201,
                 {"status": "accepted", "reserved": 1, "replayed": False}),
            Sent(1, "t1-0", "r1-2", 2, "new", '{"requestId": "r1-2", "seats": 2}', 201,
                 {"status": "accepted", "reserved": 3, "replayed": False})]
    failure = Failure("failed_check", Message("exercises.class_failed_check_answer", {"rid": "r1-1", "code": 201}), 1)
    show_grade(Grade("naive", 0, trials=3, requests=5, smallest=Trial(workload, sent, failure)), language)
    shown = capsys.readouterr().out
    assert message("exercises.kind_check_fails", language) in shown and "r1-1" in shown and "201" in shown
    assert message("exercises.class_failed_check_answer", language, rid="r1-1", code=201) in shown
    assert english_lines(shown) == [], shown
