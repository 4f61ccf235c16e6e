"""The learner's edit is what runs: a Worker cell changed to admit a fifth seat fails the lab, in German."""

from __future__ import annotations

from pathlib import Path

import nbformat

from reservation_lab.authoring.builder import notebook_path
from reservation_lab.authoring.papermill_run import run_course
from reservation_lab.errors import LabError
from reservation_lab.i18n import message
from tests.support import ANSI, raises_key

FIFTH_SEAT = ("export const CAPACITY = 4;", "export const CAPACITY = 5;")


def edited_notebook(folder: Path, drop: tuple[str, ...] = ()) -> Path:
    """The German notebook with the validation.js cell admitting a fifth seat (and cells `drop` removed)."""
    nb = nbformat.read(notebook_path("de"), as_version=4)
    cell = next(c for c in nb.cells if c.get("id") == "file-validation")
    assert FIFTH_SEAT[0] in cell.source
    cell.source = cell.source.replace(*FIFTH_SEAT)
    nb.cells = [c for c in nb.cells if c.get("id") not in drop]
    path = folder / "edited.ipynb"
    nbformat.write(nb, path)
    return path


def failed_cell(executed: Path) -> tuple[str, str]:
    """(cell id, plain traceback text) of the cell that stopped the run."""
    nb = nbformat.read(executed, as_version=4)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                return cell.id, ANSI.sub("", "\n".join(output.traceback))
    raise AssertionError("no cell failed")


def test_the_edit_is_what_the_node_tests_test(tmp_path: Path) -> None:
    with raises_key("errors.notebook_stopped", LabError):
        run_course(language="de", workdir=tmp_path / "run", log_output=False, notebook=edited_notebook(tmp_path))
    cell, text = failed_cell(tmp_path / "run" / "concurrent-reservations.de.ipynb")
    assert cell == "node-tests"
    assert message("friendly.lab_error", "de") in text and "node tests failed" not in text
    assert message("errors.node_tests_failed", "de", passed=0, failed=0, output="").split("(")[0] in text
    assert (tmp_path / "run" / "src" / "validation.js").read_text().count(FIFTH_SEAT[1]) == 1


def test_the_edit_is_what_wrangler_dev_serves(tmp_path: Path) -> None:
    """Without the node tests in the way, the burst meets the edited Worker: 5 accepted, the step-3 check fails."""
    with raises_key("errors.notebook_stopped", LabError):
        run_course(language="de", workdir=tmp_path / "run", log_output=False,
                   notebook=edited_notebook(tmp_path, drop=("node-tests",)))
    cell, text = failed_cell(tmp_path / "run" / "concurrent-reservations.de.ipynb")
    assert cell == "burst-summary"
    assert message("friendly.invariant", "de") in text and '"accepted": 5' in text  # JSON, not a Python repr
    assert message("checks.burst_summary", "de") in text and "burst summary" not in text
