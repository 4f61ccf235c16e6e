"""The Sphinx extension of the course website (website/conf.py loads it; `./lab site` builds with it).

Reads the `site.json` that `website/build.py` stages beside one language's pages and sets what differs per
language: the title, the repository and launch buttons (Binder, a JupyterHub), the language switcher's links,
the pages' `hreflang` alternates, and the theme's own words in the page's language (the catalogs' [theme]).
Adds the `lab-cell` lexer: a `%%lab_file <path>` cell is highlighted as the file it writes (JavaScript, JSONC),
every other cell as Python. Imports nothing of the course.
"""

from __future__ import annotations

import gettext
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pygments.lexer import Lexer
from pygments.lexers import JavascriptLexer, PythonLexer, get_lexer_for_filename
from pygments.token import Keyword, Text
from pygments.util import ClassNotFound
from sphinx import locale

SETTINGS = "site.json"
LEXER = "lab-cell"
LAB_FILE = re.compile(r"%%lab_file\s+(\S+)")
BINDER = "https://mybinder.org"
SEARCH_SCRIPT = """for (const [text, translated] of Object.entries(Documentation.TRANSLATIONS)) {{
  if (!translated || (Array.isArray(translated) && !translated.every(Boolean))) delete Documentation.TRANSLATIONS[text];
}}
Documentation.PLURAL_EXPR = (n) => ({singular}.includes(n) ? 0 : 1);
Object.assign(Documentation.TRANSLATIONS, {words});"""


class LabCellLexer(Lexer):
    """A course cell: `%%lab_file <path>` and the file's text, lexed as that file's kind; otherwise Python."""

    name = "Reservation lab cell"
    aliases = [LEXER]

    def get_tokens_unprocessed(self, text: str) -> Iterator[tuple[int, Any, str]]:
        first, newline, body = text.partition("\n")
        match = LAB_FILE.match(first)
        if not match:
            yield from PythonLexer().get_tokens_unprocessed(text)
            return
        yield 0, Keyword, first
        yield len(first), Text, newline
        try:
            lexer = get_lexer_for_filename(match[1])
        except ClassNotFound:
            lexer = JavascriptLexer()  # wrangler.jsonc: JSON with comments
        offset = len(first) + len(newline)
        for index, token, value in lexer.get_tokens_unprocessed(body):
            yield offset + index, token, value


def _settings(app: Any) -> dict[str, Any]:
    """The staged site.json, read once per build (every page's context asks for it)."""
    if not hasattr(app, "course_site"):
        path = Path(app.srcdir) / SETTINGS
        app.course_site = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return app.course_site


def _configure(app: Any, config: Any) -> None:
    settings = _settings(app)
    config.html_title = settings.get("title", config.project)
    options = config.html_theme_options
    options["extra_footer"] = settings.get("footer", "")
    if settings.get("search_bar"):
        options["search_bar_text"] = settings["search_bar"]
    if settings.get("repository"):
        options.update(repository_url=settings["repository"], repository_branch=settings["branch"],
                       path_to_docs=settings["path_to_docs"], use_repository_button=True)
        options["launch_buttons"] = {**options.get("launch_buttons", {}), "binderhub_url": BINDER}
        if settings.get("jupyterhub"):
            options["launch_buttons"]["jupyterhub_url"] = settings["jupyterhub"]


def _theme_words(app: Any) -> None:
    """The course's translation of the theme's words, over every message catalog Sphinx and the themes loaded
    (the Book theme has no Portuguese catalog, and some words are missing from every language's)."""
    settings = _settings(app)
    words = settings.get("theme_words", {})
    for translator in locale.translators.values():
        if isinstance(translator, gettext.GNUTranslations):
            translator._catalog.update(words)  # type: ignore[attr-defined]
        else:
            translator.add_fallback(_Words(words))
    if settings.get("script_words"):
        # The search page's words: Sphinx's JavaScript catalogs leave some empty (a blank heading or count), de's
        # plural rule yields true/false (no index: the count fails), es's no-results sentence is ungrammatical.
        # Empty entries go (English shows, and a test sees it), then the course's words, in two plural forms chosen
        # by the catalog's meta.singular, as every count the course prints.
        app.add_js_file(None, priority=900, body=SEARCH_SCRIPT.format(words=json.dumps(settings["script_words"]),
                                                                     singular=json.dumps(settings["singular"])))


class _Words(gettext.NullTranslations):
    def __init__(self, words: dict[str, str]) -> None:
        super().__init__()
        self.words = words

    def gettext(self, message: str) -> str:
        return self.words.get(message, message)


def _page_context(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    settings = _settings(app)
    up = "../" * (pagename.count("/") + 1)
    languages = [{**language, "href": f"{up}{language['code']}/{pagename}.html",
                  "current": language["code"] == settings.get("language")}
                 for language in settings.get("languages", [])]
    context["site_languages"] = languages
    context["site_switcher_label"] = settings.get("switcher", "")
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{language["code"]}" href="{language["href"]}">'
        for language in languages if not language["current"])


def setup(app: Any) -> dict[str, Any]:
    app.add_lexer(LEXER, LabCellLexer)
    app.connect("config-inited", _configure)
    app.connect("builder-inited", _theme_words)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
