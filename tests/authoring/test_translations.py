"""Translation staleness: a changed English template or `about:` brief lists, per language, what to revisit."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reservation_lab.authoring import translations
from reservation_lab.authoring.translations import CATALOG_DIR, SOURCES, accept, fingerprint, stale

LANGUAGES = translations.translated_languages()


def test_the_committed_translations_are_current() -> None:
    found = [str(entry) for language in LANGUAGES for entry in stale(language)]
    assert found == [], "revisit these, then: python -m reservation_lab translations --accept LANG KEY ...\n" + \
        "\n".join(found)


def test_every_translated_entry_records_what_it_was_translated_from() -> None:
    english = translations.english_templates()
    briefs = translations.briefs()
    for language in LANGUAGES:
        recorded = {key for _, key, match in translations._catalog_lines(CATALOG_DIR / f"{language}.toml")
                    if match["hash"]}
        assert recorded == set(english), language
        for notebook, folder in SOURCES.items():
            markers = translations._prose_lines(folder / "prose" / f"{language}.md")
            assert {f"{notebook}:{key}" for _, key, match in markers if match["hash"]} == {
                key for key in briefs if key.startswith(f"{notebook}:")}, (language, notebook)


@pytest.fixture
def copies(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    catalogs = tmp_path / "catalogs"
    shutil.copytree(CATALOG_DIR, catalogs)
    shutil.copytree(SOURCES["lab"], tmp_path / "source", ignore=shutil.ignore_patterns("exercises"))
    shutil.copytree(SOURCES["exercises"], tmp_path / "exercises")
    return catalogs, {"lab": tmp_path / "source", "exercises": tmp_path / "exercises"}


def test_a_changed_english_template_and_brief_are_listed_in_every_language(copies) -> None:
    catalogs, sources = copies
    en = catalogs / "en.toml"
    en.write_text(en.read_text().replace('port_busy = "', 'port_busy = "Careful: ', 1))
    cells = sources["exercises"] / "cells.yml"
    cells.write_text(cells.read_text().replace("Heading \"Exercise 1: the guard\".", "Heading \"Exercise 1\".", 1))
    for language in LANGUAGES:
        found = stale(language, catalogs, sources)
        assert [(entry.key, entry.language) for entry in found] == [
            ("friendly.port_busy", language), ("exercises:guard", language)]
        assert all(entry.stored and entry.stored != entry.current for entry in found)

    assert accept("pt", ["friendly.port_busy"], catalogs, sources) == ["friendly.port_busy"]
    assert [entry.key for entry in stale("pt", catalogs, sources)] == ["exercises:guard"]
    assert [entry.key for entry in stale("de", catalogs, sources)] == ["friendly.port_busy", "exercises:guard"]
    line = next(line for line in (catalogs / "pt.toml").read_text().split("\n") if line.startswith("port_busy = "))
    assert line.endswith(f"# @{fingerprint(translations.english_templates(catalogs)['friendly.port_busy'])}")
    with pytest.raises(KeyError, match="no such entry: friendly.nope"):
        accept("pt", ["friendly.nope"], catalogs, sources)


def test_an_entry_without_a_fingerprint_counts_as_stale(copies) -> None:
    catalogs, sources = copies
    de = catalogs / "de.toml"
    de.write_text(re.sub(r"^(port_busy = .*?)  # @[0-9a-f]{8}$", r"\1", de.read_text(), count=1, flags=re.M))
    assert [(entry.key, entry.stored) for entry in stale("de", catalogs, sources)] == [("friendly.port_busy", None)]


def test_the_command_lists_nothing_stale_at_head() -> None:
    listed = subprocess.run([sys.executable, "-m", "reservation_lab", "translations"], capture_output=True,
                            text=True, timeout=60)
    assert (listed.returncode, listed.stdout.strip()) == (0, "every translation is current"), listed.stderr
