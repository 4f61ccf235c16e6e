"""The theme's own words in a course language, as Sphinx takes translations: message catalogs.

`./lab site` stages, beside each language's pages, `locale/<locale>/LC_MESSAGES/` with
- `sphinx.mo` and `booktheme.mo`: the catalogs' [theme] words for the two gettext domains the pages use (Sphinx's
  and the PyData theme's templates: `sphinx`; the Book theme: `booktheme`). conf.py's `locale_dirs` and the site's
  extension make them the first catalog of each domain, so the course's words win and Sphinx's and the themes'
  own catalogs fill in the rest;
- `sphinx.js`: the search page's words, which Sphinx reads from `locale_dirs` before its own: Sphinx's messages for
  the locale (from its shipped `sphinx.po`) without the empty ones (they would show as blanks), the course's words
  over them, and the plural rule of the course's catalog (Sphinx's German rule yields true/false, not an index).
"""

from __future__ import annotations

import json
from pathlib import Path

import sphinx
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from reservation_lab.i18n import REFERENCE, message
from reservation_lab.i18n.catalog import entries, meta

DOMAINS = ("sphinx", "booktheme")
SCRIPT_WORDS = ("theme.search_results", "theme.searching", "theme.preparing_search", "theme.search_nothing")
SEARCH_FOUND = ("theme.search_found_one", "theme.search_found_other")  # one message with two forms, in the script
NOT_GETTEXT = {"theme.search_bar", *SCRIPT_WORDS, *SEARCH_FOUND}  # search_bar: a theme option (the extension)


def sphinx_locale(language: str) -> str:
    """The locale Sphinx and the theme take their own words from (the catalog's meta.locale: pt_BR for pt)."""
    return meta(language, "locale", language)


def template_words(language: str) -> dict[str, str]:
    """The theme's words in its templates: its exact English text -> the catalog's [theme] translation."""
    keys = [key for key in entries(REFERENCE) if key.startswith("theme.") and key not in NOT_GETTEXT]
    return {message(key, REFERENCE): message(key, language) for key in keys}


def script_words(language: str) -> dict[str, str | list[str]]:
    """The search page script's words (English text -> translation; the count: its two forms, with the
    `${resultCount}` the script fills in)."""
    words: dict[str, str | list[str]] = {message(key, REFERENCE): message(key, language) for key in SCRIPT_WORDS}
    one, other = SEARCH_FOUND
    words[message(one, REFERENCE)] = [message(one, language), message(other, language, n="${resultCount}")]
    return words


def sphinx_messages(locale: str) -> dict[str, str | list[str]]:
    """Sphinx's own translations for `locale` (its shipped catalog), empty ones left out."""
    po = Path(sphinx.__file__).parent / "locale" / locale / "LC_MESSAGES" / "sphinx.po"
    if not po.is_file():
        return {}
    with po.open("rb") as file:
        catalog = read_po(file, locale=locale)
    messages: dict[str, str | list[str]] = {}
    for entry in catalog:
        if not entry.id or not entry.string or entry.fuzzy:
            continue
        if isinstance(entry.id, tuple):
            if all(entry.string):
                messages[entry.id[0]] = list(entry.string)
        else:
            messages[entry.id] = entry.string
    return messages


def script_catalog(language: str) -> str:
    """The `sphinx.js` Sphinx's search page loads (its `Documentation.addTranslations` format)."""
    locale = sphinx_locale(language)
    singular = json.dumps(meta(language, "singular", [1]))
    catalog = {"locale": locale, "messages": {**sphinx_messages(locale), **script_words(language)},
               "plural_expr": f"{singular}.includes(n) ? 0 : 1"}
    return f"Documentation.addTranslations({json.dumps(catalog, ensure_ascii=False, indent=1)});\n"


def write_locale(language: str, folder: Path) -> Path:
    """Write the language's catalogs under `folder/<locale>/LC_MESSAGES/`; returns `folder`."""
    locale = sphinx_locale(language)
    target = folder / locale / "LC_MESSAGES"
    target.mkdir(parents=True)
    for domain in DOMAINS:
        catalog = Catalog(locale=locale.replace("-", "_"), domain=domain)
        for english, translated in template_words(language).items():
            catalog.add(english, translated)
        with (target / f"{domain}.mo").open("wb") as file:
            write_mo(file, catalog)
    (target / "sphinx.js").write_text(script_catalog(language), encoding="utf-8")
    return folder
