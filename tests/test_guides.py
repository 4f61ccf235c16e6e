"""The guides (README, CONTRIBUTING, TRANSLATING) name only files that exist and commands the CLI has."""

from __future__ import annotations

import re

import pytest

from reservation_lab.cli import parser
from reservation_lab.paths import REPO_ROOT

GUIDES = ["README.md", "CONTRIBUTING.md", "TRANSLATING.md"]
PATH = re.compile(r"`((?:lib|notebooks|worker|tests|bench)/[A-Za-z0-9_./-]+|[A-Z]+\.md|LICENSE(?:-TEXT)?|NOTICE)`")
COMMAND = re.compile(r"(?:python -m reservation_lab|\./lab) ([a-z-]+)")


def subcommands() -> set[str]:
    actions = [action for action in parser()._actions if action.__class__.__name__ == "_SubParsersAction"]
    return set(actions[0].choices)


@pytest.mark.parametrize("guide", GUIDES)
def test_every_path_a_guide_names_exists(guide: str) -> None:
    text = (REPO_ROOT / guide).read_text()
    placeholders = ("<", "*", "/xx")  # `<lang>`, globs, and TRANSLATING.md's example language `xx`
    named = {match.rstrip("/.") for match in PATH.findall(text) if not any(p in match for p in placeholders)}
    assert named, f"{guide} names no file"
    places = (REPO_ROOT, REPO_ROOT / "bench", REPO_ROOT / "notebooks")  # a bare `NAME.md` is one of these
    missing = sorted(path for path in named if not any((place / path).exists() for place in places))
    assert missing == []


@pytest.mark.parametrize("guide", GUIDES)
def test_every_command_a_guide_names_exists(guide: str) -> None:
    text = (REPO_ROOT / guide).read_text()
    lab_script = set(re.findall(r"^\s+([a-z]+)\)", (REPO_ROOT / "lab").read_text(), re.M))
    named = set(COMMAND.findall(text)) - {"setup"}
    unknown = sorted(name for name in named if name not in subcommands() | lab_script)
    assert unknown == []
