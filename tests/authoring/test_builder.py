"""The course notebooks: generated from one source, deterministic, and their reference outputs clean."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from reservation_lab.authoring import builder
from reservation_lab.i18n import COURSE_LANGUAGES
from reservation_lab.paths import NOTEBOOKS_DIR, REPO_ROOT
from reservation_lab.runtime.toolchain import pinned_wrangler_version

LANGS = COURSE_LANGUAGES


def load(language: str):
    return nbformat.read(builder.notebook_path(language), as_version=4)


def test_committed_notebooks_are_in_sync_with_the_source() -> None:
    assert builder.build(check_only=True) == [], "run: ./lab build"


def test_all_three_languages_exist() -> None:
    assert sorted(prose.language for prose in builder.languages()) == sorted(LANGS)
    for language in LANGS:
        assert builder.notebook_path(language).exists()


def test_code_cells_are_identical_across_languages() -> None:
    def code(language: str) -> list[tuple[str, str]]:
        cells = [(c.id, c.source) for c in load(language).cells if c.cell_type == "code"]
        # The parameters cell differs only in its `language` literal.
        return [(i, re.sub(r'^language = ".*"$', 'language = "?"', s, flags=re.M)) for i, s in cells]

    reference = code("de")
    assert len(reference) >= 20
    for language in LANGS[1:]:
        assert code(language) == reference


def test_every_markdown_cell_exists_in_every_language_and_is_translated() -> None:
    ids = {language: [c.id for c in load(language).cells] for language in LANGS}
    assert all(ids[language] == ids[LANGS[0]] for language in LANGS)
    texts = {language: {c.id: c.source for c in load(language).cells if c.cell_type == "markdown"}
             for language in LANGS}
    for cell_id in texts[LANGS[0]]:
        assert all(texts[language][cell_id].strip() for language in LANGS), f"{cell_id} is empty in some language"


def test_every_prose_section_is_written_in_its_own_language() -> None:
    """A section with the same text in two languages is not translated yet: the whole list, both notebooks (a
    translator's to-do list, TRANSLATING.md)."""
    untranslated = []
    for folder in (builder.SOURCE_DIR, builder.SOURCE_DIR / "exercises"):
        prose = {language: builder.load_prose(folder / "prose" / f"{language}.md").cells for language in LANGS}
        for index, language in enumerate(LANGS):
            where = (folder / "prose" / f"{language}.md").relative_to(REPO_ROOT)
            untranslated += [f"{where} <!-- {key} --> is {other}'s text" for key, text in prose[language].items()
                             for other in LANGS[:index] if prose[other].get(key) == text]
    assert untranslated == [], "\n".join(untranslated)


def test_the_seven_steps_are_numbered_in_every_language() -> None:
    step_heading = re.compile(r"^## \D+ (\d):")  # "## Schritt 1:", "## Etapa 1:", "## Paso 1:", in any language
    steps = {language: [int(m.group(1)) for c in load(language).cells
                        if c.cell_type == "markdown" and (m := step_heading.match(c.source))] for language in LANGS}
    assert all(numbers == [1, 2, 3, 4, 5, 6, 7] for numbers in steps.values()), steps


def test_prose_keys_must_match_the_source(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(builder.SOURCE_DIR, source)
    prose = source / "prose" / "de.md"
    prose.write_text(re.sub(r"<!-- step4-final( @[0-9a-f]{8})? -->", "<!-- step4-finale -->", prose.read_text()))
    with pytest.raises(ValueError, match="missing keys \\['step4-final'\\].*unknown keys \\['step4-finale'\\]"):
        builder.build_notebook(builder.load_cells(source), builder.load_prose(prose))


def test_a_fourth_language_is_just_a_prose_file(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(builder.SOURCE_DIR, source)
    text = (source / "prose" / "es.md").read_text().replace("language: es", "language: ca").replace(
        "name: Español", "name: Català")
    (source / "prose" / "ca.md").write_text(text)
    nb = builder.build_notebook(builder.load_cells(source), builder.load_prose(source / "prose" / "ca.md"))
    assert 'language = "ca"' in next(c.source for c in nb.cells if c.id == "parameters")


def test_notebooks_are_deterministic() -> None:
    for language in LANGS:
        nb = load(language)
        assert set(nb.metadata) == {"kernelspec", "language_info"}
        assert nb.metadata.language_info == {"name": "python"}
        position = 0
        for cell in nb.cells:
            assert re.fullmatch(r"(md-)?[a-z0-9-]+", cell.id), cell.id
            assert set(cell.metadata) <= {"tags"}
            if cell.cell_type == "code":
                position += 1
                assert cell.execution_count in (None, position)
    # that a rebuild gives the committed bytes is test_committed_notebooks_are_in_sync_with_the_source


def _prose(language: str) -> Path:
    return builder.SOURCE_DIR / "prose" / f"{language}.md"


def test_exactly_one_parameters_cell_of_plain_literals() -> None:
    for language in LANGS:
        tagged = [c for c in load(language).cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1
        tree = ast.parse(tagged[0].source)
        names = set()
        for statement in tree.body:
            assert isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant), \
                ast.unparse(statement)
            names.add(statement.targets[0].id)
        assert {"cloud", "account_name", "workshop", "burst_size", "port", "workdir", "language"} <= names
        assert f'language = "{language}"' in tagged[0].source
        assert "cloud = False" in tagged[0].source and "port = 0" in tagged[0].source


def test_invariant_cells_are_checked_by_nbval() -> None:
    checked = {c.id for c in load("de").cells if builder.CHECK_TAG in c.metadata.get("tags", [])}
    assert {"burst-summary", "burst-status", "restart-status", "replay", "after-restart", "final-status",
            "stop-server", "cloud-deploy", "report"} <= checked
    outputs = {c.id: "".join(o.get("text", "") for o in c.outputs) for c in load("de").cells if c.cell_type == "code"}
    assert '"accepted": 4' in outputs["burst-summary"] and '"rejected": 6' in outputs["burst-summary"]
    assert '"rejectedRequests": 7' in outputs["final-status"]
    assert '"replayed": true' in outputs["replay"]
    assert "cloud = False" in outputs["cloud-deploy"]


def test_committed_outputs_hold_no_secrets_or_local_paths() -> None:
    for language in LANGS:
        text = builder.notebook_path(language).read_text()
        assert str(REPO_ROOT) not in text
        assert "/tmp/" not in text and "/root" not in text and "/home/" not in text
        assert not re.search(r"\b[0-9a-f]{32}\b", text)
        assert not re.search(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]{2,}", text)
        assert '"account_id"' not in text


def test_nbval_catches_a_changed_invariant(tmp_path: Path) -> None:
    """A tampered reference output must fail nbval: the check is real, not decorative."""
    nb = load("de")
    keep = {"parameters", "setup", "wrangler-version"}
    nb.cells = [c for c in nb.cells if c.cell_type == "code" and c.id in keep]
    version_cell = next(c for c in nb.cells if c.id == "wrangler-version")
    good = tmp_path / "good.ipynb"
    nbformat.write(nb, good)
    shown = next(o for o in version_cell.outputs if o.get("text", "").startswith("wrangler "))
    shown["text"] = shown["text"].replace(pinned_wrangler_version(), "4.999.0")
    bad = tmp_path / "bad.ipynb"
    nbformat.write(nb, bad)

    def nbval(path: Path) -> int:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env", "-p", "no:cacheprovider",
             "-p", "reservation_lab.jupyter.socket_kernels",
             "--nbval-sanitize-with", str(NOTEBOOKS_DIR / "nbval-sanitize.cfg"), "-q", str(path),
             "-o", "addopts=", "--rootdir", str(tmp_path)],
            capture_output=True, text=True, timeout=180, cwd=tmp_path,
        ).returncode

    assert nbval(good) == 0
    assert nbval(bad) == 1


def test_the_notebooks_readme_links_each_notebook_by_its_title() -> None:
    """notebooks/README.md names each notebook, the lab and the exercises in every language, by the title its prose
    gives it (H1 of the `title` section)."""
    readme = (NOTEBOOKS_DIR / "README.md").read_text()
    links = dict((target, text) for text, target in re.findall(r"\[([^\]]+)\]\(([a-z]{2}/[^)]+\.ipynb)\)", readme))
    titles = {f"{prose.language}/{notebook.file_name}": prose.cells["title"].splitlines()[0].removeprefix("# ")
              for notebook in builder.NOTEBOOKS for prose in builder.languages(notebook.source_dir)}
    assert len(titles) == 6 and links == titles
