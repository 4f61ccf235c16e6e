"""Licences: the SPDX fields agree with the files, and the README and NOTICE say which covers what."""

from __future__ import annotations

import json
import tomllib
from importlib.metadata import metadata

from reservation_lab.paths import REPO_ROOT


def test_the_spdx_fields_name_the_licence_files() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT AND CC-BY-4.0"
    assert project["license-files"] == ["LICENSE", "LICENSE-TEXT", "NOTICE"]
    assert metadata("reservation-lab")["License-Expression"] == project["license"], "reinstall: ./lab setup"
    assert json.loads((REPO_ROOT / "worker" / "package.json").read_text())["license"] == "MIT"
    lock = json.loads((REPO_ROOT / "worker" / "package-lock.json").read_text())
    assert lock["packages"][""]["license"] == "MIT"


def test_the_licence_files_are_the_full_texts() -> None:
    code = (REPO_ROOT / "LICENSE").read_text()
    assert code.startswith("MIT License\n") and "THE SOFTWARE IS PROVIDED \"AS IS\"" in code
    text = (REPO_ROOT / "LICENSE-TEXT").read_text()
    assert text.startswith("Creative Commons Attribution 4.0 International\n")
    assert "Section 8 – Interpretation." in text and len(text) > 15_000  # the whole legal code, not a summary


def test_readme_and_notice_say_which_licence_covers_what() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    notice = (REPO_ROOT / "NOTICE").read_text()
    for words in ("MIT", "CC BY 4.0", "LabEx", "Coordinate concurrent reservations"):
        assert words in readme, words
    for words in ("LICENSE-TEXT", "notebooks/source/prose/", "i18n/catalogs/", "not affiliated", "Cloudflare, Inc."):
        assert words in notice, words
