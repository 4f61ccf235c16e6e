"""notebooks/FIDELITY.md: every seed paragraph maps to cells that exist, in every language."""

from __future__ import annotations

import re

from reservation_lab.authoring.builder import load_cells
from reservation_lab.paths import NOTEBOOKS_DIR

FIDELITY = NOTEBOOKS_DIR / "FIDELITY.md"


def known_ids() -> set[str]:
    ids = set()
    for cell in load_cells():
        if "prose" in cell:
            ids.add(f"md-{cell['prose']}")
        else:
            ids.add(cell["id"])
    return ids


def mapped_rows(language: str) -> list[list[str]]:
    """The rows (cells split) of the language's fidelity tables (those headed `| seed paragraph …`)."""
    section = FIDELITY.read_text().split(f"## Fidelity map: {language}", 1)[1].split("\n## Fidelity map:", 1)[0]
    rows, in_map = [], False
    for line in section.splitlines():
        if not line.startswith("|"):
            in_map = False
        elif line.startswith("| seed paragraph"):
            in_map = True
        elif in_map and not line.startswith("| ---"):
            rows.append([part.strip() for part in line.strip().strip("|").split("|")])
    return rows


def problems_of(row: list[str], ids: set[str]) -> list[str]:
    """What is wrong with one row: no existing cell named, or a cell-id-shaped name that does not exist."""
    tokens = re.findall(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z]+", row[-1])
    named = [t for t in tokens if t in ids]
    unknown = [t for t in tokens if ("-" in t or t.startswith("md")) and t not in ids]
    return ([] if named else ["no existing cell"]) + [f"unknown cell {t}" for t in unknown]


def test_every_language_has_a_map_whose_cell_ids_exist() -> None:
    ids = known_ids()
    for language in ("de", "pt", "es"):
        rows = mapped_rows(language)
        assert len(rows) >= 40, f"{language}: the map covers too few seed paragraphs"
        wrong = {row[0]: problems_of(row, ids) for row in rows if problems_of(row, ids)}
        assert wrong == {}, f"{language}: {wrong}"


def test_the_check_names_a_missing_or_mistyped_cell() -> None:
    ids = known_ids()
    assert problems_of(["p", "fact", "md-step7, burst-summary"], ids) == []
    assert problems_of(["p", "fact", "md-step8"], ids) == ["no existing cell", "unknown cell md-step8"]
    assert problems_of(["p", "fact", "md-step7, burst-sumary"], ids) == ["unknown cell burst-sumary"]


TERMINAL = NOTEBOOKS_DIR / "source" / "terminal"


def test_what_the_map_says_of_the_terminal_blocks_and_the_node_tests_is_still_true() -> None:
    """The map's claims that go stale when a notebook changes: a command it says a terminal block starts with is
    that block's first line, and the node tests it counts are the count the committed German run printed."""
    import json

    text = FIDELITY.read_text()
    claims = re.findall(r"step-(\d)\s+(?:burst\s+)?block\s+(starts with|runs)\s+`([^`]+)`", text)
    assert len(claims) >= 3, claims
    for step, verb, command in claims:
        blocks = [path.read_text() for path in TERMINAL.glob(f"step{step}*.sh")]
        lines = [[line.strip().removesuffix(" &&") for line in block.splitlines()] for block in blocks]
        found = [block for block, its in zip(blocks, lines, strict=True)
                 if (block.startswith(command) if verb == "starts with" else command in its)]
        assert found, f"no step-{step} terminal block {verb} {command!r}"
    assert "has no `rm -f" not in text
    notebook = json.loads((NOTEBOOKS_DIR / "de" / "concurrent-reservations.ipynb").read_text())
    node_tests = next(cell for cell in notebook["cells"] if cell.get("id") == "node-tests")
    printed = "".join("".join(output.get("text", "")) for output in node_tests["outputs"])
    counted = set(re.findall(r"\((\d+) in the committed", text))
    assert counted and {n for n in counted if f"{n} bestanden" not in printed} == set(), (counted, printed[-200:])



SEEDS = NOTEBOOKS_DIR.parent.parent / "shared" / "seeds"  # beside the repository on the authors' machines only
SEED_OF = {"de": "000_d9b535b73464e9c9.txt", "pt": "001_d30b18ce8eb3ec5c.txt", "es": "004_2e2e6fd3f844d272.txt"}


def _words(text: str) -> str:
    return " ".join(text.split())


def _notebook_text(language: str) -> str:
    """Every source line and stored output of the language's lab notebook, whitespace folded."""
    import nbformat

    from tests.support import output_text

    notebook = nbformat.read(NOTEBOOKS_DIR / language / "concurrent-reservations.ipynb", as_version=4)
    return _words("\n".join(f"{cell.source}\n{output_text(cell)}" for cell in notebook.cells))


def _said_in(quote: str, sources: list[str]) -> bool:
    """Whether each piece of `quote` around an ellipsis occurs in one of `sources`."""
    pieces = [_words(piece).strip(" ;,.") for piece in quote.split("…")]
    return all(any(piece in source for source in sources) for piece in pieces if piece)


def test_each_quoted_wording_is_the_notebooks_or_the_seeds() -> None:
    """A „…“ quote in the map is the notebook's own words, or, where the words just before it name the seed, the
    seed's: a quote the course no longer says is stale. The German part is read against the German notebook, the
    part for pt and es against theirs; seed quotes against the seeds where they are beside the repository."""
    text = FIDELITY.read_text()
    german, rest = text.split("## Fidelity map: pt", 1)
    stale, checked = [], 0
    for languages, section in ((["de"], german), (["pt", "es"], rest)):
        notebooks = [_notebook_text(language) for language in languages]
        seeds = [_words((SEEDS / SEED_OF[language]).read_text()) for language in languages if SEEDS.is_dir()]
        for match in re.finditer(r"„([^“]+)“", section):
            before = section[max(0, section.rfind("\n", 0, match.start() - 80)):match.start()]
            if _said_in(match.group(1), notebooks):
                checked += 1
            elif "seed" not in before:
                stale.append(match.group(1))
            elif seeds and not _said_in(match.group(1), seeds):
                stale.append(f"seed: {match.group(1)}")
    assert checked >= 8, checked
    assert stale == [], f"quoted in FIDELITY.md, said by neither notebook nor seed: {stale}"
