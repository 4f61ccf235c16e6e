"""One copy of the theme's assets for every language: each language's Sphinx build writes its own `_static/`, most of
it byte-identical (the theme's CSS, scripts and fonts). Files identical in every language move to the site's
`_static/`, and each language's pages load them from there (`_static/x` becomes `../_static/x`): a reader who
switches language loads them once. What differs (Sphinx's words, the search's stemmer, the course's options) stays
in the language's own `_static/`. Imports nothing of the course."""

from __future__ import annotations

import filecmp
import re
import shutil
from pathlib import Path

STATIC = "_static"
REFERENCE = re.compile(r"(?<![\w/.-])((?:\.\./)*)_static/([^\"'()?#\s]+)")  # a relative reference in a page
PAGES = ("*.html",)


def identical_assets(site: Path, languages: tuple[str, ...]) -> list[Path]:
    """The paths under `_static/` that every language has with the same bytes."""
    first = site / languages[0] / STATIC
    same = []
    for path in sorted(p for p in first.rglob("*") if p.is_file()):
        relative = path.relative_to(first)
        others = [site / language / STATIC / relative for language in languages[1:]]
        if all(other.is_file() and filecmp.cmp(path, other, shallow=False) for other in others):
            same.append(relative)
    return same


def share_assets(site: Path, languages: tuple[str, ...]) -> int:
    """Move the identical assets to `site/_static/` and point every page at them; returns how many moved."""
    moved = identical_assets(site, languages)
    shared = {path.as_posix() for path in moved}
    for relative in moved:
        target = site / STATIC / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(site / languages[0] / STATIC / relative, target)
        for language in languages[1:]:
            (site / language / STATIC / relative).unlink()

    def repoint(match: re.Match[str]) -> str:
        ups, path = match.groups()
        return f"{ups}../{STATIC}/{path}" if path in shared else match.group(0)

    for language in languages:
        for pattern in PAGES:
            for page in (site / language).rglob(pattern):
                text = page.read_text(encoding="utf-8")
                changed = REFERENCE.sub(repoint, text)
                if changed != text:
                    page.write_text(changed, encoding="utf-8")
        for folder in sorted((site / language / STATIC).rglob("*"), reverse=True):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
    return len(moved)
