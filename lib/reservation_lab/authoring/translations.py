"""Translation staleness: which translated entries were written against an English text that has changed since.

Each translated catalog entry carries, after its value, `# @<hash>`: the fingerprint of the English template
(catalogs/en.toml) it translates. Each prose section's marker carries the fingerprint of the `about:` brief
(cells.yml) it was written against: `<!-- name @<hash> -->`. When the English template or the brief changes, the
entry is stale until a translator has revisited it and recorded the new fingerprint:

    python -m reservation_lab translations                      # list what is stale, per language
    python -m reservation_lab translations --accept pt KEY ...  # after revising: record the current fingerprints

(KEY: a catalog key `section.name` or a prose section `lab:name` / `exercises:name`; no KEY: all of the language.)
A key missing from a catalog fails tests/i18n as before; this module only knows what was translated from what.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reservation_lab.authoring.builder import EXERCISES, LAB, MARKER, load_cells
from reservation_lab.i18n.catalog import CATALOG_DIR, REFERENCE, entries

SOURCES = {"lab": LAB.source_dir, "exercises": EXERCISES.source_dir}  # the prefix of a prose key, its cells.yml
SKIPPED_SECTIONS = {"meta"}  # the language's own name and plural rule: nothing translated from English
SECTION = re.compile(r"^\[([a-z_]+)\]")
ENTRY = re.compile(r'^(?P<key>[A-Za-z0-9_]+) = (?P<value>"(?:[^"\\]|\\.)*")(?:\s*# @(?P<hash>[0-9a-f]{8}))?\s*$')


def fingerprint(text: str) -> str:
    """Eight hex digits of the text's SHA-256: enough to notice a change, short enough to sit beside an entry."""
    return hashlib.sha256(text.strip().encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Stale:
    """One translated entry whose English original changed (`stored` None: never recorded)."""

    language: str
    key: str
    stored: str | None
    current: str

    def __str__(self) -> str:
        was = f"written against @{self.stored}" if self.stored else "no fingerprint recorded"
        return f"{self.language} {self.key}: {was}, English now @{self.current}"


def english_templates(catalog_dir: Path = CATALOG_DIR) -> dict[str, str]:
    """`section.key` → the English template, for every translated section (i18n's reading of the catalog)."""
    return entries(REFERENCE, catalog_dir)


def briefs(sources: dict[str, Path] = SOURCES) -> dict[str, str]:
    """`notebook:name` → the `about:` brief of each prose cell."""
    found = {}
    for notebook, folder in sources.items():
        for cell in load_cells(folder):
            if "prose" in cell:
                found[f"{notebook}:{cell['prose']}"] = cell.get("about", "")
    return found


def _catalog_lines(path: Path) -> list[tuple[int, str, re.Match[str]]]:
    """(line index, `section.key`, match) of every translated entry in a catalog file."""
    found, section = [], ""
    for index, line in enumerate(path.read_text().split("\n")):
        header = SECTION.match(line)
        if header:
            section = header.group(1)
            continue
        match = ENTRY.match(line)
        if match and section and section not in SKIPPED_SECTIONS:
            found.append((index, f"{section}.{match['key']}", match))
    return found


def _prose_lines(path: Path) -> list[tuple[int, str, re.Match[str]]]:
    return [(index, match["key"], match) for index, line in enumerate(path.read_text().split("\n"))
            if (match := MARKER.match(line))]


def stale(language: str, catalog_dir: Path = CATALOG_DIR, sources: dict[str, Path] = SOURCES) -> list[Stale]:
    """Every entry of `language` (catalog and prose of both notebooks) written against other English."""
    found = []
    english = english_templates(catalog_dir)
    for _, key, match in _catalog_lines(catalog_dir / f"{language}.toml"):
        if key in english and match["hash"] != fingerprint(english[key]):
            found.append(Stale(language, key, match["hash"], fingerprint(english[key])))
    about = briefs(sources)
    for notebook, folder in sources.items():
        for _, name, match in _prose_lines(folder / "prose" / f"{language}.md"):
            key = f"{notebook}:{name}"
            if key in about and match["hash"] != fingerprint(about[key]):
                found.append(Stale(language, key, match["hash"], fingerprint(about[key])))
    return found


def translated_languages(catalog_dir: Path = CATALOG_DIR) -> list[str]:
    return sorted(path.stem for path in catalog_dir.glob("*.toml") if path.stem != REFERENCE)


def accept(language: str, keys: list[str] | None = None, catalog_dir: Path = CATALOG_DIR,
           sources: dict[str, Path] = SOURCES) -> list[str]:
    """Record the current English fingerprints for `keys` of `language` (all when None); return the keys changed."""
    wanted = set(keys) if keys else None
    changed: list[str] = []
    english, about = english_templates(catalog_dir), briefs(sources)

    def rewrite(path: Path, entries: list[tuple[int, str, re.Match[str]]], originals: dict[str, str],
                render: Callable[[re.Match[str], str], str]) -> None:
        lines = path.read_text().split("\n")
        for index, key, match in entries:
            if key in originals and (wanted is None or key in wanted) and match["hash"] != fingerprint(originals[key]):
                lines[index] = render(match, fingerprint(originals[key]))
                changed.append(key)
        path.write_text("\n".join(lines))

    rewrite(catalog_dir / f"{language}.toml", _catalog_lines(catalog_dir / f"{language}.toml"), english,
            lambda m, h: f"{m['key']} = {m['value']}  # @{h}")
    for notebook, folder in sources.items():
        path = folder / "prose" / f"{language}.md"
        entries = [(i, f"{notebook}:{key}", m) for i, key, m in _prose_lines(path)]
        rewrite(path, entries, about, lambda m, h: f"<!-- {m['key']} @{h} -->")
    unknown = sorted(wanted - set(english) - set(about)) if wanted else []
    if unknown:
        raise KeyError(f"no such entry: {', '.join(unknown)}")
    return changed
