"""notebooks/FIDELITY.md: every seed paragraph maps to cells that exist, in every language."""

from __future__ import annotations

import re

from reservation_lab.course.builder import load_cells
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


def test_every_language_has_a_map_whose_cell_ids_exist() -> None:
    ids = known_ids()
    for language in ("de", "pt", "es"):
        rows = mapped_rows(language)
        assert len(rows) >= 40, f"{language}: the map covers too few seed paragraphs"
        for row in rows:
            tokens = re.findall(r"[a-z][a-z0-9-]*[a-z0-9]", row[-1])
            assert [t for t in tokens if t in ids], f"{language}: {row[0]!r} names no existing cell"
            missing = [t for t in tokens if t.startswith("md-") and t not in ids]
            assert missing == [], f"{language}: {row[0]!r} names prose cells that do not exist: {missing}"


def test_the_check_sees_a_cell_that_does_not_exist() -> None:
    assert "md-step8" not in known_ids() and "md-step7" in known_ids() and "experiment-replay" in known_ids()
