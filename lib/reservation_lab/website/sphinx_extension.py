"""The Sphinx extension of the course website (website/conf.py loads it; `./lab site` builds with it).

Reads the `site.json` that `website/build.py` stages beside one language's pages and sets what differs per
language: the title, the repository and launch buttons (Binder, a JupyterHub), the language switcher's links,
the pages' `hreflang` alternates; registers the course's catalog of the theme's words first (see setup).
Adds the `lab-cell` lexer: a `%%lab_file <path>` cell is highlighted as the file it writes (JavaScript, JSONC),
every other cell as Python. Imports nothing of the course.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pygments.lexer import Lexer
from pygments.lexers import JavascriptLexer, PythonLexer, get_lexer_for_filename
from pygments.token import Keyword, Text
from pygments.util import ClassNotFound

SETTINGS = "site.json"
LEXER = "lab-cell"
LAB_FILE = re.compile(r"%%lab_file\s+(\S+)")
BINDER = "https://mybinder.org"
LOCALE = "locale"  # beside the pages: the course's message catalogs (website/theme_words.py), conf.py's locale_dirs
BOOK_THEME_DOMAIN = "booktheme"


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
    # Sphinx reads the search page's catalog (sphinx.js) from locale_dirs as given, i.e. from the working folder:
    # made absolute, they name the catalogs beside the pages, where Sphinx's gettext catalogs come from too.
    config.locale_dirs = [str(Path(app.srcdir, folder)) for folder in config.locale_dirs]
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
    # The course's words for the Book theme's domain, registered before the theme registers its own (the theme
    # loads with the builder, after this): the first catalog of a domain is the one asked first. Sphinx's domain
    # takes them from conf.py's locale_dirs. Both written by website/theme_words.py.
    course_words = Path(app.srcdir) / LOCALE
    if course_words.is_dir():
        app.add_message_catalog(BOOK_THEME_DOMAIN, str(course_words))
    app.add_lexer(LEXER, LabCellLexer)
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
