"""course.exercises: `lab.grade`, `lab.hint`, `lab.stop_grading` in a session, in the learner's language; and the
exercises notebook run by papermill with the reference solutions."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from reservation_lab import course as lab
from reservation_lab.authoring.builder import EXERCISES, notebook_path
from reservation_lab.authoring.kernel import ensure_kernel
from reservation_lab.course.exercises import HINTS, GradeFailed
from reservation_lab.course.files import cell_text, write_lab_file
from reservation_lab.exercises.catalog import exercise, exercises
from reservation_lab.i18n import message
from reservation_lab.i18n.catalog import template
from tests.support import english_lines, output_text, raises_key

LANGUAGES = ("de", "pt", "es")


@pytest.mark.parametrize("language", LANGUAGES)
def test_hints_come_one_by_one_in_the_learners_language(language: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    lab.start(language, tmp_path / "run")
    for name in exercises():
        for _ in range(HINTS + 1):
            lab.hint(name)
        shown = capsys.readouterr().out.splitlines()
        assert shown == [f"{n}/{HINTS}: " + message(f"hints.{name}_{n}") for n in range(1, HINTS + 1)] + [
            message("hints.no_more", name=name)]
        assert english_lines("\n".join(shown)) == []
    with raises_key("exercises.unknown", name="nope"):
        lab.hint("nope")


def test_the_file_cell_writes_the_stub_into_the_run(tmp_path: Path) -> None:
    session = lab.start("de", tmp_path / "run")
    for name in exercises():
        target = f"exercises/{name}.js"
        assert cell_text(target) == exercise(name).stub()
        path = write_lab_file(session.run, target, cell_text(target))
        assert path == session.run.root / target and path.read_text() == exercise(name).stub()


def test_a_failed_grade_shows_the_smallest_workload_in_the_learners_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = lab.start("pt", tmp_path / "run")
    write_lab_file(session.run, "exercises/guard.js", cell_text("exercises/guard.js"))
    result = lab.grade("guard", seed=1, workloads=10)
    assert not result.passed and result.failure is not None and result.failure.kind == "overbooking"
    shown = capsys.readouterr().out
    assert shown.startswith(message("exercises.grade_failed", name="guard", problem=result.failure.message))
    assert message("exercises.round", round=1) in shown and message("exercises.why") in shown
    assert '"reserved": 5' in shown and english_lines(shown) == []
    assert lab.stop_grading() == {"processesLeft": 0, "portFree": True}


def test_a_reference_solution_that_fails_stops_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `solutions = True` a failing grade is a defect of the course: GradeFailed, with its key."""
    from reservation_lab.exercises import catalog

    broken = exercise("init")
    monkeypatch.setattr(catalog.Exercise, "solution", lambda self: broken.stub() if self.name == "init" else "")
    lab.start("de", tmp_path / "run")
    with raises_key("exercises.grade_failed_short", GradeFailed, name="init"):
        lab.grade("init", solution=True, seed=1, workloads=10, seconds=5)
    assert lab.stop_grading() == {"processesLeft": 0, "portFree": True}


def test_the_exercises_notebook_with_the_solutions_passes_every_grade(tmp_path: Path) -> None:
    """papermill runs the German exercises notebook with `solutions = True` (few workloads): every grade passes and
    says what the Worker survived, every output is German, the grading server is gone at the end."""
    import papermill

    executed = tmp_path / "exercises.de.ipynb"
    papermill.execute_notebook(str(notebook_path("de", EXERCISES)), str(executed), kernel_name=ensure_kernel(),
                               parameters={"solutions": True, "workloads": 4, "workdir": str(tmp_path / "run")},
                               progress_bar=False, cwd=str(notebook_path("de", EXERCISES).parent))
    cells = {cell.id: cell for cell in nbformat.read(executed, as_version=4).cells if cell.cell_type == "code"}
    for name in exercises():
        shown = output_text(cells[f"grade-{name}"])  # the grading server's command line (once), then the grade
        passed = template("exercises.grade_passed", "de").split("{workloads}")[0].format(name=name)
        assert any(line.startswith(passed) for line in shown.splitlines()), shown
        assert "error" not in {o.output_type for o in cells[f"grade-{name}"].outputs}
        assert english_lines(shown) == [], name
    assert '"processesLeft": 0' in output_text(cells["stop-grading"])
