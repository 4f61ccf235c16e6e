"""One catalog per language (`catalogs/<language>.toml`), one lookup: `message(key, language, **values)`.

A key is `<section>.<name>` (e.g. `errors.port_busy`). A `Message` is a key with its values, rendered later in
any language; a value may itself be a Message. Plural forms are `<name>_one` / `<name>_other`, chosen when the
message is rendered, by the language's `meta.singular` counts. Floats are written with the language's decimal
sign. A fourth language is one more catalog file (here, or in a folder named by RESERVATION_LAB_CATALOGS).
"""

from __future__ import annotations

import json
import os
import string
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

CATALOG_DIR = Path(__file__).with_name("catalogs")
EXTRA_DIRS = "RESERVATION_LAB_CATALOGS"  # os.pathsep-separated folders with more <language>.toml files
REFERENCE = "en"  # the language of logs, scripts, tests and str(error)
COURSE_LANGUAGES = ("de", "pt", "es")  # the notebooks' languages: a new one is added here (TRANSLATING.md)


class Message(NamedTuple):
    """A catalog key, the values of its placeholders, and (for plural forms) the value that counts."""

    key: str
    values: Mapping[str, Any] = {}
    count: str | None = None


def plural(key: str, n: int, **values: Any) -> Message:
    """`<key>_one` or `<key>_other`, chosen per language when rendered; n is the `{n}` placeholder."""
    return Message(key, {"n": n, **values}, count="n")


def catalog_dirs() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(EXTRA_DIRS, "").split(os.pathsep) if p]
    return [CATALOG_DIR, *extra]


@cache
def _load(language: str, dirs: tuple[Path, ...]) -> dict[str, Any] | None:
    for folder in dirs:
        path = folder / f"{language}.toml"
        if path.exists():
            with path.open("rb") as file:
                return tomllib.load(file)
    return None


def catalog(language: str) -> dict[str, Any] | None:
    """The parsed catalog of `language`, or None if no catalog file has it."""
    return _load(language, tuple(catalog_dirs()))


def languages() -> list[str]:
    """Every language with a catalog file, the reference language last."""
    found = {path.stem for folder in catalog_dirs() if folder.is_dir() for path in folder.glob("*.toml")}
    return sorted(found - {REFERENCE}) + [REFERENCE]


def meta(language: str, name: str, default: Any) -> Any:
    """One fact of the language's `[meta]` (name, decimal, singular, locale), `default` without it."""
    return ((catalog(language) or {}).get("meta") or {}).get(name, default)


def language_name(language: str) -> str:
    """The language's own name for itself (its catalog's meta.name: "Deutsch"), or its code without a catalog."""
    return meta(language, "name", language)


def entries(language: str, folder: Path | None = None) -> dict[str, str]:
    """Every `<section>.<name>` template of the language's catalog (meta excluded); `folder`: read that folder's
    file as it is now (no cache: the translation tools edit catalogs), not the configured catalogs."""
    if folder is not None:
        with (folder / f"{language}.toml").open("rb") as file:
            data = tomllib.load(file)
    else:
        data = catalog(language) or {}
    return {f"{section}.{name}": template for section, table in data.items() if section != "meta"
            for name, template in table.items()}


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def number(value: float, language: str, digits: int = 1) -> str:
    """A decimal number as the language writes it (its catalog's meta.decimal, a point by default)."""
    shown = f"{value:.{digits}f}"
    sign = meta(language, "decimal", ".")
    return shown.replace(".", sign)


def quoted(value: Any) -> str:
    """A value inside a learner's sentence as JSON writes it ("text", 3, true, null), never as a Python repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


def template(key: str, language: str) -> str:
    """The key's template in `language`, else in English; a key no catalog has is a programming error."""
    section, _, name = key.partition(".")
    for lang in (language, REFERENCE):
        found = ((catalog(lang) or {}).get(section) or {}).get(name)
        if isinstance(found, str):
            return found
    raise KeyError(f"no catalog has the key {key!r}")


def _form(message: Message, language: str) -> str:
    if message.count is None:
        return message.key
    singular = meta(language if catalog(language) else REFERENCE, "singular", [1])
    return f"{message.key}_{'one' if message.values[message.count] in singular else 'other'}"


def describe(message: Message, language: str | None = None) -> str:
    """The message in `language` (default and where a catalog lacks it: English), nested too."""
    language = language or REFERENCE
    shown = {}
    for name, value in message.values.items():
        if isinstance(value, Message):
            value = describe(value, language)
        elif isinstance(value, list | tuple) and value and all(isinstance(v, Message) for v in value):
            value = "; ".join(describe(v, language) for v in value)
        elif isinstance(value, float):
            value = number(value, language)
        shown[name] = value
    return template(_form(message, language), language).format(**shown)


def message(key: str, language: str | None = None, **values: Any) -> str:
    """One sentence of the catalog: `message("lines.run_folder", "de", path=...)` in `language` (English when
    None). There is no current language here: the course's session passes its own (runtime.context)."""
    return describe(Message(key, values), language or REFERENCE)
