"""exercises.catalog: the stubs' task comments are in the learner's language, their markers and code in none."""

from __future__ import annotations

import re

import nbformat
import pytest

from reservation_lab.authoring.builder import EXERCISES, notebook_path
from reservation_lab.exercises.catalog import exercise, exercises
from reservation_lab.i18n import COURSE_LANGUAGES, message

COMMENTS = {"//": re.compile(r"^\s*//(.*)$", re.M), "#": re.compile(r"^\s*#(.*)$", re.M)}  # a Worker, the client


def comment_mark(name: str) -> str:
    return "#" if exercise(name).client else "//"


def comments(source: str, mark: str = "//") -> str:
    return "\n".join(COMMENTS[mark].findall(source))


def code(source: str, mark: str = "//") -> list[str]:
    """The lines that are not comments."""
    return [line for line in source.split("\n") if not line.lstrip().startswith(mark)]


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_each_stub_says_its_task_in_the_learners_language(language: str) -> None:
    for name in exercises():
        stub, english, mark = exercise(name).stub(language), exercise(name).stub("en"), comment_mark(name)
        said = comments(stub, mark)
        assert message(f"stubs.{name}", language) in said and "@@" not in stub
        header = " ".join(line.strip() for line in said.split("\n") if line.strip())
        assert message(exercise(name).header_key, language, name=name) in header
        # the English task and header are gone (index.js's or the reference client's first line too); markers and
        # code are the same
        assert message(f"stubs.{name}", "en") not in said and "Reservation Worker:" not in said
        assert "Reservation client:" not in said and "The reference solution" not in said
        assert "The front Worker only validates" not in said and "wrong in one" not in said
        assert f"{mark} >>> EXERCISE {name}: " in stub and f"{mark} <<< EXERCISE {name} <<<" in stub
        assert code(stub, mark) == code(english, mark)
        assert code(exercise(name).solution(language), mark) == code(exercise(name).solution("en"), mark)


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_the_committed_notebook_hands_out_the_stubs_in_its_language(language: str) -> None:
    nb = nbformat.read(notebook_path(language, EXERCISES), as_version=4)
    files = {cell.id.removeprefix("file-"): cell.source.split("\n", 1)[1] for cell in nb.cells
             if cell.id.startswith("file-")}
    assert files == {name: exercise(name).stub(language).rstrip("\n") for name in exercises()}
