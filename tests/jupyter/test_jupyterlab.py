"""`./lab jupyter` opens the learner's own copies of the notebooks (workspace/), never the committed ones.

The committed notebooks are the reference outputs nbval checks and the files `git pull` (or nbgitpuller) updates:
a Run All in JupyterLab, which saves the executed notebook in place, must leave them and `git status` as they were.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import nbformat
import pytest

from reservation_lab.cli import main
from reservation_lab.domain.config import new_run_name
from reservation_lab.jupyter import jupyterlab as jupyter
from reservation_lab.jupyter.jupyterlab import (
    WORKSPACE_DIR,
    course_notebooks,
    jupyter_argv,
    prepare_workspace,
    workspace_argv,
    workspace_line,
)
from reservation_lab.paths import NOTEBOOKS_DIR, REPO_ROOT, RUNS_DIR
from tests.support import output_text

LANGUAGES = ("de", "es", "pt")
NOTEBOOK_NAMES = ("concurrent-reservations.ipynb", "exercises.ipynb")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True,
                          timeout=60).stdout


def fingerprints() -> dict[Path, str]:
    return {path: hashlib.sha256((NOTEBOOKS_DIR / path).read_bytes()).hexdigest() for path in course_notebooks()}


def root_dir(argv: list[str]) -> Path:
    """The folder a `jupyter lab` command line opens (--ServerApp.root_dir)."""
    flags = [arg.split("=", 1)[1] for arg in argv if arg.startswith("--ServerApp.root_dir=")]
    assert len(flags) == 1, argv
    return Path(flags[0])


def test_every_committed_notebook_is_a_course_notebook() -> None:
    """The copies cover each language's lab and exercises notebook, and nothing of notebooks/source/."""
    assert course_notebooks() == sorted(Path(language) / name for language in LANGUAGES for name in NOTEBOOK_NAMES)
    tracked = set(git("ls-files", "--", "notebooks/*/*.ipynb").split())
    assert {str(Path("notebooks") / path) for path in course_notebooks()} == tracked


def test_the_first_start_copies_every_committed_notebook(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    made = prepare_workspace(workspace)
    assert made == [workspace / path for path in course_notebooks()]
    for copy in made:
        assert copy.read_bytes() == (NOTEBOOKS_DIR / copy.relative_to(workspace)).read_bytes()
    assert [path.name for path in workspace.rglob(".*")] == []  # no partial copy left behind


def test_a_later_start_keeps_the_learners_copy_and_adds_what_is_new(tmp_path: Path) -> None:
    """An edited copy is never overwritten, even when the course's notebook changed since; a notebook new upstream
    (or a copy the learner deleted) is copied on the next start."""
    upstream = tmp_path / "notebooks"
    (upstream / "de").mkdir(parents=True)
    (upstream / "source").mkdir()
    lab = Path("de") / "concurrent-reservations.ipynb"
    shutil.copyfile(NOTEBOOKS_DIR / lab, upstream / lab)
    (upstream / "source" / "draft.ipynb").write_text("{}")  # never a course notebook
    workspace = tmp_path / "workspace"
    assert prepare_workspace(workspace, upstream) == [workspace / lab]

    mine = workspace / lab  # the learner ran it and typed in it
    notebook = nbformat.read(mine, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("learner = 'ana@example.org'"))
    nbformat.write(notebook, mine)
    learners = mine.read_bytes()

    changed = nbformat.read(upstream / lab, as_version=4)  # the course changes the notebook, adds two more
    changed.cells.insert(0, nbformat.v4.new_markdown_cell("A new first paragraph."))
    nbformat.write(changed, upstream / lab)
    shutil.copyfile(NOTEBOOKS_DIR / "de" / "exercises.ipynb", upstream / "de" / "exercises.ipynb")
    (upstream / "pt").mkdir()
    new_language = Path("pt") / "concurrent-reservations.ipynb"
    shutil.copyfile(NOTEBOOKS_DIR / new_language, upstream / new_language)

    assert prepare_workspace(workspace, upstream) == [workspace / "de" / "exercises.ipynb", workspace / new_language]
    assert mine.read_bytes() == learners
    assert prepare_workspace(workspace, upstream) == []
    assert mine.read_bytes() == learners

    mine.unlink()  # to start afresh, the learner deletes the copy
    assert prepare_workspace(workspace, upstream) == [mine]
    assert mine.read_bytes() == (upstream / lab).read_bytes()


def test_lab_jupyter_opens_jupyterlab_on_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m reservation_lab jupyter …` (what `./lab jupyter` runs): the copies are made, one line says where,
    and JupyterLab is started on the workspace, its other options passed on; notebooks/ appears nowhere in it."""
    workspace = tmp_path / "workspace"
    started = {}
    monkeypatch.setattr(jupyter, "WORKSPACE_DIR", workspace)
    monkeypatch.setattr(jupyter.os, "execve", lambda path, argv, env: started.update(path=path, argv=argv))
    assert main(["jupyter", "--port", "8899"]) == 0
    argv = started["argv"]
    assert argv[0] == started["path"] and argv[1] == "lab" and argv[-2:] == ["--port", "8899"]
    assert root_dir(argv) == workspace
    assert not any(str(NOTEBOOKS_DIR) in arg for arg in argv)
    assert sorted(path.relative_to(workspace) for path in workspace.rglob("*.ipynb")) == course_notebooks()
    said = capsys.readouterr().out.splitlines()
    assert len(said) == 1 and f"{workspace}/" in said[0] and "notebooks/" in said[0] and "6 copied" in said[0]

    main(["jupyter"])  # a second start copies nothing and says so by leaving the count out
    assert "copied" not in capsys.readouterr().out


def test_the_default_workspace_is_git_ignored_and_not_collected() -> None:
    """workspace/ at the repository root: ignored by git (each copy, JupyterLab's checkpoints, a learner's new
    notebook), tracked nowhere, and outside pytest's testpaths (nbval must not run a learner's copies)."""
    assert WORKSPACE_DIR == REPO_ROOT / "workspace"
    assert root_dir(jupyter_argv()) == WORKSPACE_DIR
    assert " in workspace/;" in workspace_line(WORKSPACE_DIR, [])
    inside = [f"workspace/{path}" for path in course_notebooks()]
    inside += ["workspace/de/.ipynb_checkpoints/exercises-checkpoint.ipynb", "workspace/Untitled.ipynb"]
    result = subprocess.run(["git", "check-ignore", *inside], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and result.stdout.split() == inside
    assert git("ls-files", "--", "workspace") == ""
    testpaths = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"]
    assert not any(WORKSPACE_DIR.is_relative_to(REPO_ROOT / path) for path in testpaths)


@pytest.mark.slow
@pytest.mark.stress  # every ./lab test proves the same in a fresh clone: tests/course/test_binder.py runs the
                     # workspace copy postBuild prepared, in place, and finds `git status` clean
def test_run_all_in_the_workspace_leaves_the_repository_unchanged(tmp_path: Path) -> None:
    """The acceptance: the German lab notebook, opened the way `./lab jupyter` opens it, runs top to bottom in the
    course's kernel and is saved in place (as JupyterLab's autosave does), from the workspace's folder. Its outputs
    are in the learner's copy; the committed notebooks and `git status` are as before (run folders are in .runs/,
    ignored). The experiments are skipped, as in the other whole runs; the other parameters are the local defaults
    (the run folder named here only so the test can remove it)."""
    from reservation_lab.jupyter.kernelspec import KERNEL_NAME
    from reservation_lab.jupyter.papermill_engine import execute

    status = ["status", "--porcelain", "--untracked-files=all"]
    notebooks_before, everything_before = git(*status, "--", "notebooks"), set(git(*status).splitlines())
    committed = fingerprints()
    workspace = tmp_path / "workspace"
    copy = root_dir(workspace_argv([], workspace)) / "de" / "concurrent-reservations.ipynb"
    assert nbformat.read(copy, as_version=4).metadata["kernelspec"]["name"] == KERNEL_NAME
    run = RUNS_DIR / new_run_name()
    try:
        execute(copy, copy, copy.parent, parameters={"experiments": False, "workdir": str(run)}, log_output=False)
        report = json.loads((run / "report.json").read_text())
    finally:
        shutil.rmtree(run, ignore_errors=True)

    assert fingerprints() == committed, "a committed notebook was written"
    assert git(*status, "--", "notebooks") == notebooks_before
    assert set(git(*status).splitlines()) - everything_before == set()

    executed = nbformat.read(copy, as_version=4)  # the run is in the learner's copy, saved in place
    code = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code) and not any(
        output.output_type == "error" for cell in code for output in cell.outputs)
    assert report["summary"] == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    assert report["run"] in "".join(output_text(cell) for cell in code)
