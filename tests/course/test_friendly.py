"""Friendly cells: a lab error shows one sentence in the notebook's language, the cell still fails loudly."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from reservation_lab.authoring import builder
from reservation_lab.course.friendly import friendly_traceback, lab_names
from reservation_lab.errors import DevServerError, InvariantError, LabError, PortBusyError, ToolchainError
from reservation_lab.i18n import COURSE_LANGUAGES, message
from reservation_lab.jupyter.papermill_engine import papermill_engine
from tests.support import ANSI, execute_cells, printed


def plain(lines: list[str]) -> str:
    return ANSI.sub("", "\n".join(lines))


def notebook(*sources: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(builder.KERNELSPEC)}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path, allow_errors: bool = True, timeout: int = 120) -> None:
    execute_cells(nb, cwd, allow_errors, timeout)


def errors_of(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [output for output in cell.outputs if output.output_type == "error"]


SETUP = "from reservation_lab import course as lab\nsession = lab.start({language!r}, {workdir!r})"


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_lab_errors_show_one_sentence_in_the_notebooks_language_and_still_fail(language: str, tmp_path: Path) -> None:
    nb = notebook(
        SETUP.format(language=language, workdir=str(tmp_path / "run")),
        "from reservation_lab.errors import DevServerError\n"
        "print('before')\n"
        "raise DevServerError('errors.server_no_health', seconds=60, log='logs/dev.log')",
        "print(server)",
        "from reservation_lab.domain.invariants import check_equal\ncheck_equal('burst_summary', 3, 4)",
        "print(not_a_lab_name)",
        "print('still running')",
    )
    execute(nb, tmp_path)
    setup, lab_error, name_error, invariant, other_name, last = nb.cells
    assert errors_of(setup) == []
    assert printed(last) == "still running\n"

    dev_server = message("errors.server_no_health", language, seconds=60, log="logs/dev.log")
    not_equal = message("invariants.not_equal", language, label=message("checks.burst_summary", language),
                        expected=4, actual=3)
    for cell, headline, ename, evalue, detail in (
        (lab_error, "friendly.dev_server", "DevServerError",
         "wrangler dev did not answer /health within 60 s; see logs/dev.log.", f"DevServerError: {dev_server}"),
        (name_error, "friendly.name", "NameError", "name 'server' is not defined", None),
        (invariant, "friendly.invariant", "InvariantError", "burst summary: expected 4, got 3.",
         f"InvariantError: {not_equal}"),
    ):
        [error] = errors_of(cell)  # a real error output: Run All stops here, papermill and nbval fail
        assert (error.ename, error.evalue) == (ename, evalue)  # English for papermill's report and logs
        shown = plain(error.traceback)
        assert "Traceback" not in shown and "File " not in shown, shown
        expected = [message(headline, language, name="server")] + ([detail] if detail else [])
        assert shown.splitlines() == expected
        assert evalue not in shown  # the learner reads the message in the notebook's language only
    assert printed(lab_error) == "before\n"

    [error] = errors_of(other_name)  # a learner's own NameError keeps IPython's full traceback
    assert error.ename == "NameError" and "Traceback" in plain(error.traceback)


def test_a_lab_error_still_fails_nbclient_and_papermill(tmp_path: Path) -> None:
    import papermill

    source = notebook(SETUP.format(language="es", workdir=str(tmp_path / "run")),
                      "from reservation_lab.errors import PortBusyError\n"
                      "raise PortBusyError('errors.port_busy', port=8787, host='127.0.0.1')",
                      "print('never reached')")
    with pytest.raises(CellExecutionError, match="El puerto elegido está ocupado"):
        execute(nbformat.from_dict(source), tmp_path, allow_errors=False)

    path = tmp_path / "failing.ipynb"
    nbformat.write(source, path)
    with pytest.raises(papermill.PapermillExecutionError) as raised:
        papermill.execute_notebook(str(path), str(tmp_path / "out.ipynb"), kernel_name="python3",
                                   engine_name=papermill_engine(), progress_bar=False, cwd=str(tmp_path))
    assert raised.value.ename == "PortBusyError"
    assert "Port 8787 on 127.0.0.1 is already in use" in raised.value.evalue
    executed = [cell for cell in nbformat.read(tmp_path / "out.ipynb", as_version=4).cells
                if cell.cell_type == "code"]
    assert len(plain(errors_of(executed[1])[0].traceback).splitlines()) == 2
    assert executed[2].outputs == []


def test_sentences_follow_the_error_class() -> None:
    def sentence(error: BaseException, language: str = "de") -> str | None:
        lines = friendly_traceback(error, language)
        return None if lines is None else ANSI.sub("", lines[0])

    port = {"port": 8787, "host": "127.0.0.1"}
    assert sentence(ToolchainError("errors.node_missing", major=22, lab="./lab")) == message("friendly.toolchain", "de")
    assert sentence(PortBusyError("errors.port_busy", **port), "pt") == message("friendly.port_busy", "pt")
    assert sentence(DevServerError("errors.config_missing", path="x"), "es") == message("friendly.dev_server", "es")
    assert sentence(LabError("cloud.not_logged_in")) == message("friendly.lab_error", "de")
    unknown = sentence(InvariantError("invariants.unexpected_replay", rid="r"), "xx")  # unknown language: English
    assert unknown == message("friendly.invariant", "en")
    assert sentence(NameError("name 'decisions' is not defined", name="decisions"), "es").startswith("`decisions`")
    assert sentence(NameError("name 'typo' is not defined", name="typo")) is None
    assert sentence(ValueError("x")) is None and sentence(AssertionError("x")) is None


def test_every_name_a_cell_reads_is_defined_by_a_cell_or_a_builtin() -> None:
    """lab_names() is what a NameError is explained for; a cell reading a name no cell defines fails here."""
    import builtins

    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    read = {node.id for cell in builder.load_cells() if "code" in cell
            for node in ast.walk(compile(cell["code"], cell["id"], "exec", flags=flags))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    assert read - set(dir(builtins)) <= lab_names()
    assert {"lab", "run", "decisions", "server", "burst_size", "language"} <= lab_names()


def test_cells_reach_helpers_only_through_the_facade() -> None:
    """One import of the package in the cells (the facade), and every lab.<name> the cells call is in it."""
    from reservation_lab import course

    code = "\n".join(cell["code"] for cell in builder.load_cells() if "code" in cell)
    imports = re.findall(r"^(?:from|import) reservation_lab.*$", code, re.M)
    assert imports == ["from reservation_lab import course as lab"]
    used = set(re.findall(r"\blab\.(\w+)", code))
    assert used <= set(course.__all__), used - set(course.__all__)
    assert all(hasattr(course, name) for name in course.__all__)


def test_the_setup_cell_starts_the_session_in_the_notebooks_language() -> None:
    for language in ("de", "pt", "es"):
        nb = nbformat.read(builder.notebook_path(language), as_version=4)
        setup = next(cell for cell in nb.cells if cell.id == "setup")
        assert "session = lab.start(language, workdir, record_only=record_only)" in setup.source
        assert "run = session.run" in setup.source


def test_waiting_shows_one_progress_line_and_a_rerun_setup_cell_stops_what_the_session_started(tmp_path: Path
                                                                                              ) -> None:
    """A re-run of the setup cell ends the previous session: its dev server and the rehearsal's double stop."""
    nb = notebook(
        SETUP.format(language="pt", workdir=str(tmp_path / "first")),
        "from reservation_lab.domain.config import write_wrangler_config\n"
        "run = session.run\n"
        "write_wrangler_config(run)\n"
        "server = lab.start_server(run)\n"
        "lab.choose_cloud('rehearsal')\n"
        "double = session.rehearsal.double",
        f"second = lab.start('pt', {str(tmp_path / 'second')!r})\n"
        "import os\n"
        "print(server.stopped, not server.processes(), second.run.root != run.root, session.rehearsal is None,"
        " 'CLOUDFLARE_API_BASE_URL' not in os.environ, not double.root.exists(), lab.current() is second)",
    )
    execute(nb, tmp_path, allow_errors=False, timeout=180)
    shown = [output for output in nb.cells[1].outputs if output.output_type == "display_data"]
    assert len(shown) == 1, nb.cells[1].outputs  # one line, updated in place while waiting
    assert re.fullmatch(r"wrangler dev pronto após \d+,\d s", shown[0].data["text/plain"])
    assert printed(nb.cells[2]).splitlines()[-1] == "True True True True True True True"  # after any
    # earlier-run lines the setup cell prints for this checkout's .runs


def test_the_courses_kernel_explains_a_cell_run_before_the_setup_cell(tmp_path: Path) -> None:
    """The `reservation-lab` kernel loads course.kernel_extension: a cell that reads a name the course defines,
    run before the setup cell, gets the short hint (in the notebook's `language` once its parameters cell ran;
    English before that), not a raw NameError traceback."""
    from reservation_lab.jupyter.kernelspec import EXTENSION, KERNEL_NAME, kernel_dir

    assert EXTENSION in kernel_dir().joinpath("kernel.json").read_text()
    nb = notebook("print(run)", "language = 'pt'", "print(server)")
    execute_cells(nb, tmp_path, kernel_name=KERNEL_NAME)
    before_parameters, _, after_parameters = nb.cells
    for cell, language, name in ((before_parameters, "en", "run"), (after_parameters, "pt", "server")):
        [error] = errors_of(cell)
        assert error.ename == "NameError" and "Traceback" not in plain(error.traceback)
        assert plain(error.traceback).splitlines() == [message("friendly.name", language, name=name)]
