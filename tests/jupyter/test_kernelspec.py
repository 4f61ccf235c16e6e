"""The course's named kernel: installed once, runs this Python, logs errors only, explains lab errors from its
start (course.kernel_extension)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reservation_lab.jupyter.kernelspec import DISPLAY_NAME, EXTENSION, KERNEL_NAME, QUIET, ensure_kernel, kernel_dir


def test_ensure_kernel_installs_and_is_idempotent(tmp_path: Path) -> None:
    assert ensure_kernel(str(tmp_path)) == KERNEL_NAME
    spec = json.loads((kernel_dir(str(tmp_path)) / "kernel.json").read_text())
    assert spec["display_name"] == DISPLAY_NAME
    assert Path(spec["argv"][0]).resolve() == Path(sys.executable).resolve()
    assert spec["argv"].count(QUIET) == 1 and spec["argv"].count(EXTENSION) == 1
    ensure_kernel(str(tmp_path))
    again = json.loads((kernel_dir(str(tmp_path)) / "kernel.json").read_text())
    assert again == spec


def test_an_older_kernelspec_is_quieted_and_gets_the_course_extension(tmp_path: Path) -> None:
    folder = kernel_dir(str(tmp_path))
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(json.dumps({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f",
                                                             "{connection_file}"], "display_name": "old",
                                                    "language": "python"}))
    ensure_kernel(str(tmp_path))
    assert json.loads((folder / "kernel.json").read_text())["argv"][-2:] == [QUIET, EXTENSION]


def test_notebooks_name_the_course_kernel() -> None:
    """Every committed notebook runs in the kernel the bootstrap installs, under its display name."""
    import nbformat

    from reservation_lab.authoring.builder import languages, notebook_path

    for prose in languages():
        spec = nbformat.read(notebook_path(prose.language), as_version=4).metadata["kernelspec"]
        assert (spec["name"], spec["display_name"]) == (KERNEL_NAME, DISPLAY_NAME), prose.language
