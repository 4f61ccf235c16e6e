"""One German run of the course, shared by the tests that only read what it printed, announced and wrote."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from reservation_lab.domain.config import new_run_name
from reservation_lab.paths import RUNS_DIR


@dataclass(frozen=True)
class CourseRun:
    """`python -m reservation_lab local` of the German notebook with its defaults (experiments included)."""

    root: Path
    stdout: str
    stderr: str
    returncode: int

    @property
    def report(self) -> dict:
        return json.loads((self.root / "report.json").read_text())

    @property
    def notebook(self) -> nbformat.NotebookNode:
        return nbformat.read(self.root / "concurrent-reservations.de.ipynb", as_version=4)


@pytest.fixture(scope="session")
def german_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CourseRun]:
    """The run folder lives in .runs/ (so announced folders are shown relative to the repository); it is removed
    afterwards, exactly that folder. The command runs from an unrelated folder, as a course author may."""
    root = RUNS_DIR / new_run_name()
    proc = subprocess.run([sys.executable, "-m", "reservation_lab", "local", "--workdir", str(root)],
                          capture_output=True, text=True, timeout=400, cwd=tmp_path_factory.mktemp("elsewhere"))
    yield CourseRun(root, proc.stdout, proc.stderr, proc.returncode)
    shutil.rmtree(root, ignore_errors=True)
