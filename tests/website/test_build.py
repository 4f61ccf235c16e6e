"""The course website (website/build.py, `./lab site`): built offline from the committed notebooks, read in a
real browser.

One build for the module (about 8 s), with a repository and a JupyterHub so that every launch button exists, run
under an audit hook that fails any use of a socket (nothing may be downloaded while the site is built). The static
tests read the HTML files; the browser tests (marked `browser`) serve the site on 127.0.0.1 and open it in Debian's
Chromium through Playwright. Screenshots of the browser tests go to .artifacts/site/.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag

import pytest

from reservation_lab.i18n import COURSE_LANGUAGES, describe, language_name, message, plural
from reservation_lab.i18n.catalog import entries
from reservation_lab.paths import NOTEBOOKS_DIR, REPO_ROOT
from reservation_lab.race.plots import FONT
from reservation_lab.website import build as site
from reservation_lab.website.build import (
    EXERCISES_PAGE,
    LAB_PAGE,
    Launch,
    SiteError,
    build_site,
    index_page,
    sphinx_locale,
)
from tests.support import chromium_browser, english_lines, with_environment_bin

REPOSITORY = "https://github.com/example-school/reservation-lab"
HUB = "https://hub.example.edu"
PAGES = ("index", LAB_PAGE, EXERCISES_PAGE)
ARTIFACTS = REPO_ROOT / ".artifacts" / "site"
# Imported by every Python process the build starts (PYTHONPATH): any socket use fails the build.
NO_NETWORK = '''import sys


def _no_network(event, args):
    if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto"):
        raise RuntimeError(f"the site build used the network: {event} {args!r}")


sys.addaudithook(_no_network)
'''


@dataclass
class Built:
    output: Path
    front: Path
    seconds: float


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment whose Python processes fail on any socket use."""
    guard = tmp_path_factory.mktemp("no-network")
    (guard / "sitecustomize.py").write_text(NO_NETWORK)
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(guard), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, offline: dict[str, str]) -> Built:
    output = tmp_path_factory.mktemp("site") / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", offline["PYTHONPATH"])
        started = time.monotonic()
        front = build_site(output, Launch(REPOSITORY, "main", HUB))
        seconds = time.monotonic() - started
    return Built(output, front, seconds)


class Page(HTMLParser):
    """What a test needs of one HTML file: its language, ids, links and the resources it loads."""

    LOADS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src", "audio": "src"}
    NOT_READ = {"script", "style", "pre", "code", "noscript"}  # code and data, not prose
    READ_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")  # tooltips and what a screen reader says
    BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "div", "td", "th", "dt", "dd", "section", "nav",
              "button", "label", "title", "footer", "header", "ul", "ol", "table", "tr", "article", "aside"}

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.lang: str | None = None
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.loads: list[str] = []
        self.images: list[dict[str, str]] = []
        self.readable: list[str] = []  # text blocks and labels a reader sees or hears
        self._skipping: list[str] = []
        self._block: list[str] = []
        self.feed(path.read_text(encoding="utf-8"))
        self._flush()

    def _flush(self) -> None:
        text = " ".join("".join(self._block).split())
        if text:
            self.readable.append(text)
        self._block = []

    def handle_endtag(self, tag: str) -> None:
        if self._skipping and self._skipping[-1] == tag:
            self._skipping.pop()
        elif tag in self.BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        self._block.append(" " if self._skipping else data)  # code inside a sentence leaves a gap, not a break

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag in self.BLOCKS:
            self._flush()
        if tag in self.NOT_READ:
            self._skipping.append(tag)
        self.readable += [values[name] for name in self.READ_ATTRIBUTES if values.get(name)]
        if tag == "img":
            self.images.append(values)
        if tag == "html":
            self.lang = values.get("lang")
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.links.append(values["href"])
        if tag in self.LOADS and values.get(self.LOADS[tag]):
            self.loads.append(values[self.LOADS[tag]])
        if tag == "link" and values.get("href") and values.get("rel") not in ("alternate", "canonical"):
            self.loads.append(values["href"])


def pages_of(output: Path) -> dict[Path, Page]:
    return {path: Page(path) for path in sorted(output.rglob("*.html")) if "_static" not in path.parts}


def notebook(language: str, page: str) -> dict[str, Any]:
    return json.loads((NOTEBOOKS_DIR / language / f"{page}.ipynb").read_text(encoding="utf-8"))


def heading_cells(language: str, page: str) -> dict[str, str]:
    """cell id -> heading text, for every markdown cell that starts with a heading."""
    return {cell["id"]: "".join(cell["source"]).splitlines()[0].lstrip("# ").strip()
            for cell in notebook(language, page)["cells"]
            if cell["cell_type"] == "markdown" and "".join(cell["source"]).startswith("#")}


def outputs_of(language: str, cell_id: str) -> str:
    cell = next(cell for cell in notebook(language, LAB_PAGE)["cells"] if cell["id"] == cell_id)
    return "".join("".join(output.get("text", "")) for output in cell["outputs"] if output["output_type"] == "stream")


def squeezed(text: str) -> str:
    return " ".join(text.split())


# The build ---------------------------------------------------------------------------------------------------


def test_the_network_guard_fails_a_process_that_opens_a_socket(offline: dict[str, str]) -> None:
    """The guard the build runs under can fail: a process that connects (even to loopback) dies with its message."""
    code = "import socket; socket.create_connection(('127.0.0.1', 9), timeout=1)"
    result = subprocess.run([sys.executable, "-c", code], env={**os.environ, **offline}, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0
    assert re.search(r"the site build used the network: socket\.(getaddrinfo|connect)", result.stderr)


def test_the_site_builds_offline(built: Built) -> None:
    """Built with the network refused (the fixture's guard) within the build's own deadline; how long it takes is
    bench/bench_site.py's (a wall-time bound here failed on a loaded machine: 76.7 s beside two test runs)."""
    assert built.front == built.output / "index.html"
    assert built.seconds < site.BUILD_TIMEOUT, f"{built.seconds:.1f} s"
    assert (built.output / ".nojekyll").exists()
    assert sorted(path.name for path in built.output.iterdir()) == sorted([".nojekyll", site.MARKER, "index.html",
                                                                          "_static", *COURSE_LANGUAGES])


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_every_language_has_its_pages_in_its_language(built: Built, language: str) -> None:
    for page in (*PAGES, "search"):
        parsed = Page(built.output / language / f"{page}.html")
        assert parsed.lang == sphinx_locale(language).replace("_", "-"), page  # pt-BR: Sphinx's Brazilian words
    index = squeezed(re.sub(r"<[^>]+>", "", (built.output / language / "index.html").read_text(encoding="utf-8")))
    for key in ("lead", "run_heading", "binder", "online_heading"):
        assert squeezed(message(f"site.{key}", language)) in index, key
    assert f"./lab jupyter ./lab run --language {language} ./lab test" in index
    for page in (*PAGES, "search"):  # the search shortcut's key cap (Strg in German), in every copy of the field
        html = (built.output / language / f"{page}.html").read_text(encoding="utf-8")
        caps = set(re.findall(r'<kbd class="kbd-shortcut__modifier">([^<]+)</kbd>\+', html))
        assert caps == {message("theme.ctrl", language)}, page
    assert f"{language}/{LAB_PAGE}.ipynb" in index  # the notebook a learner opens in JupyterLab
    assert f"git clone {REPOSITORY}.git" in index


def test_nothing_is_loaded_from_another_machine(built: Built) -> None:
    remote = [(path.relative_to(built.output), url) for path, page in pages_of(built.output).items()
              for url in page.loads if re.match(r"^(https?:)?//", url)]
    assert remote == []
    css_remote = [path.name for path in built.output.rglob("*.css")
                  if re.search(r"url\(\s*['\"]?(https?:)?//|@import\s+['\"]?(https?:)?//", path.read_text())]
    assert css_remote == []


def test_every_internal_link_and_anchor_resolves(built: Built) -> None:
    pages = pages_of(built.output)
    broken = []
    checked = 0
    for path, page in pages.items():
        for href in page.links:
            if re.match(r"^[a-z]+:", href):
                continue
            target, fragment = urldefrag(href)
            target_path = (path.parent / unquote(target.split("?")[0])).resolve() if target else path
            checked += 1
            if not target_path.exists():
                broken.append(f"{path.relative_to(built.output)} -> {href}")
            elif fragment and target_path.suffix == ".html" and fragment not in pages[target_path].ids:
                broken.append(f"{path.relative_to(built.output)} -> {href} (no such anchor)")
    assert broken == []
    assert checked > 100  # the sidebars, tables of contents, switchers and headings of every page


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_launch_buttons_open_the_notebook_on_binder_and_on_the_hub(built: Built, language: str) -> None:
    for page in (LAB_PAGE, EXERCISES_PAGE):
        links = Page(built.output / language / f"{page}.html").links
        path = f"notebooks/{language}/{page}.ipynb"
        assert f"https://mybinder.org/v2/gh/example-school/reservation-lab/main?urlpath=lab/tree/{path}" in links
        assert (f"{HUB}/hub/user-redirect/git-pull?repo=https%3A//github.com/example-school/reservation-lab"
                f"&urlpath=lab/tree/reservation-lab/{path}&branch=main") in links
        assert REPOSITORY in links


def test_every_text_cell_carries_the_same_anchor_in_every_language(built: Built) -> None:
    """The switcher's anchors: one per text cell, the same set in every language (a language may give a cell a
    heading another does not)."""
    for page in (LAB_PAGE, EXERCISES_PAGE):
        expected = {f"cell-{page}-{cell['id']}" for cell in notebook("de", page)["cells"]
                    if cell["cell_type"] == "markdown"}
        assert len(expected) >= 10
        for language in COURSE_LANGUAGES:
            ids = Page(built.output / language / f"{page}.html").ids
            assert {id_ for id_ in ids if id_.startswith("cell-")} == expected, language


def test_the_pages_show_the_stored_outputs(built: Built) -> None:
    """The race plot is the notebook's own SVG (nothing was executed), and the burst's stored output is there."""
    for language in COURSE_LANGUAGES:
        cell = next(cell for cell in notebook(language, LAB_PAGE)["cells"] if cell["id"] == "race-plot")
        svg = "".join(next(output["data"]["image/svg+xml"] for output in cell["outputs"]
                           if "image/svg+xml" in output.get("data", {})))
        images = [path.read_text(encoding="utf-8") for path in (built.output / language / "_images").glob("*.svg")]
        assert svg.strip() in [image.strip() for image in images], language
        html = (built.output / language / f"{LAB_PAGE}.html").read_text(encoding="utf-8")
        first_line = outputs_of(language, "burst-serial").splitlines()[0]
        assert first_line.split(":")[0] in html


PLOT_FONT = FONT  # the race plot's label size in SVG units
PAGE_BUDGET = 1_500_000  # bytes a lab page may fetch (all of it: HTML, styles, scripts, fonts, the plot)


def test_the_front_page_links_every_language_with_its_title(built: Built) -> None:
    front = Page(built.front)
    text = built.front.read_text(encoding="utf-8")
    for language in COURSE_LANGUAGES:
        assert f"{language}/index.html" in front.links
        assert language_name(language) in text
        assert heading_cells(language, LAB_PAGE)["md-title"] in text


def test_the_front_page_names_the_course_and_its_repository(built: Built) -> None:
    front = Page(built.front)
    text = built.front.read_text(encoding="utf-8")
    assert "<h1>Durable Objects &amp; SQLite</h1>" in text
    assert REPOSITORY in front.links


def test_tab_titles_say_the_page_once(built: Built) -> None:
    """The lab page's title is the course's: the tab says it once (it said it twice, 147 characters)."""
    for language in COURSE_LANGUAGES:
        titles = {page: re.search(r"<title>(.*?)</title>", (built.output / language / f"{page}.html").read_text(
            encoding="utf-8"), re.S).group(1) for page in PAGES}
        course = heading_cells(language, LAB_PAGE)["md-title"]
        assert html.unescape(titles[LAB_PAGE]) == course, language
        assert html.unescape(titles["index"]).endswith(f" \u2014 {course}"), language


def test_the_site_publishes_no_source_maps(built: Built) -> None:
    """The theme's source maps were half the site: a reader's browser never loads them."""
    assert list(built.output.rglob("*.map")) == []
    size = sum(path.stat().st_size for path in built.output.rglob("*") if path.is_file())
    assert size < 14_000_000, size


def test_the_theme_s_assets_are_shipped_once_and_every_page_finds_them(built: Built) -> None:
    """Files every language's build wrote with the same bytes live once, in the site's _static/; a language's own
    _static/ keeps only what differs (its words, its stemmer, its options); every asset a page loads or links
    exists (a moved file no page finds would be a blank style or a dead script)."""
    shared = [p for p in (built.output / "_static").rglob("*") if p.is_file()]
    assert len(shared) > 50 and any(p.name == "favicon.svg" for p in shared)
    own = {language: sorted(p.relative_to(built.output / language / "_static").as_posix()
                            for p in (built.output / language / "_static").rglob("*") if p.is_file())
           for language in COURSE_LANGUAGES}
    assert all(0 < len(files) <= 8 for files in own.values()), own
    assert all("documentation_options.js" in files for files in own.values())
    missing, checked = [], 0
    for path in pages_of(built.output):
        for reference in re.findall(r'(?:href|src)="([^"]+)"', path.read_text(encoding="utf-8")):
            target = unquote(urldefrag(reference)[0].split("?")[0])
            if "_static/" not in target or re.match(r"^[a-z]+:", target):
                continue
            checked += 1
            if not (path.parent / target).exists():
                missing.append(f"{path.relative_to(built.output)} -> {reference}")
    assert missing == [] and checked > 200
    assert "../_static/styles/theme.css" in (built.output / "de" / f"{LAB_PAGE}.html").read_text()


def test_an_index_page_without_repository_has_no_launch_section() -> None:
    titles = {LAB_PAGE: "Lab", EXERCISES_PAGE: "Exercises"}
    page = index_page("pt", titles, Launch())
    assert "git clone" not in page
    assert message("site.online_heading", "pt") not in page
    assert "./lab run --language pt" in page
    with_hub = index_page("pt", titles, Launch(REPOSITORY, "main", HUB))
    assert message("site.jupyterhub", "pt", url=HUB) in with_hub
    unset = index_page("pt", titles, Launch(REPOSITORY, "main", ""))  # the workflow's JUPYTERHUB_URL, not set
    assert message("site.binder", "pt") in unset and HUB not in unset


@pytest.mark.parametrize(("repository", "hub", "words"), [
    ("http://github.com/a/b", None, "--repository must look like https://github.com/OWNER/NAME"),
    ("https://gitlab.com/a/b", None, "--repository must look like"),
    ("https://github.com/a/b.git", None, "--repository must look like"),
    ("https://github.com/a/..", None, "--repository must look like"),
    (REPOSITORY, "http://hub.example.edu", "--jupyterhub must be the hub's https:// address"),
    (None, HUB, "--jupyterhub needs --repository"),
])
def test_bad_launch_settings_are_refused_with_one_sentence(repository: str | None, hub: str | None,
                                                          words: str) -> None:
    with pytest.raises(SiteError, match=re.escape(words)):
        Launch(repository, "main", hub)


@pytest.mark.parametrize("branch", ["", "two words", "a:b"])
def test_a_branch_that_is_no_branch_is_refused(branch: str) -> None:
    with pytest.raises(SiteError, match="--branch must name a branch"):
        Launch(REPOSITORY, branch)


def test_the_command_line_refuses_a_bad_repository_and_builds_nothing(tmp_path: Path) -> None:
    output = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "reservation_lab", "site", "--output", str(output),
                             "--repository", "github.com/a/b"], capture_output=True, text=True, timeout=120,
                            env=with_environment_bin())
    assert result.returncode == 2
    assert result.stderr.startswith("error: --repository must look like https://github.com/OWNER/NAME")
    assert not output.exists()


def test_a_folder_that_is_not_a_site_is_never_replaced(tmp_path: Path) -> None:
    """--output pointing at a folder with other files (a home, a checkout) is refused before anything is built."""
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SiteError, match="is not a website built by ./lab site"):
        build_site(tmp_path, Launch())
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]
    file = tmp_path / "notes.txt"
    with pytest.raises(SiteError, match="is not a website built by ./lab site"):
        build_site(file, Launch())
    assert file.read_text() == "mine"
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    with pytest.raises(SiteError, match="is a symbolic link"):
        build_site(link, Launch())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link", "notes.txt"]


def test_a_sphinx_warning_fails_the_build_and_keeps_the_old_site(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken link is an error (sphinx -W), reported with Sphinx's words; the previous site stays as it was."""
    output = tmp_path / "site"
    output.mkdir()
    (output / "index.html").write_text("the previous site")
    (output / site.MARKER).write_text("")
    original = site.index_page
    monkeypatch.setattr(site, "index_page", lambda *args: original(*args) + "\n[gone](no-such-page.ipynb)\n")
    with pytest.raises(SiteError, match="no-such-page"):
        build_site(output, Launch(), languages=("de",))
    assert (output / "index.html").read_text() == "the previous site"


def test_no_page_reads_as_english_in_its_text_or_labels(built: Built) -> None:
    """Without a browser: every page's text and its tooltips, labels and alt texts (code aside), each language."""
    english = {str(path.relative_to(built.output)): lines for path, page in pages_of(built.output).items()
               if (lines := english_lines("\n".join(page.readable)))}
    assert english == {}


def test_the_downloads_are_the_committed_notebooks(built: Built) -> None:
    """The download button offers the notebook as committed (the site's anchors and lexer stay in the site)."""
    for language in COURSE_LANGUAGES:
        for page in (LAB_PAGE, EXERCISES_PAGE):
            download = (built.output / language / "_sources" / f"{page}.ipynb").read_bytes()
            assert download == (NOTEBOOKS_DIR / language / f"{page}.ipynb").read_bytes(), (language, page)


def test_the_race_plot_says_what_it_shows(built: Built) -> None:
    for language in COURSE_LANGUAGES:
        images = Page(built.output / language / f"{LAB_PAGE}.html").images
        plots = [image["alt"] for image in images if "_images/" in image["src"]]
        assert plots == [message("site.figure_race_plot", language)]
        launch = {image["alt"] for image in images if "/logo_" in image["src"]}
        assert launch == {f"{service} {message('theme.logo', language)}" for service in ("Binder", "JupyterHub")}


def test_every_theme_word_is_still_the_theme_s_own(built: Built) -> None:
    """Each [theme] entry is found by its exact English: that text must still occur in Sphinx, the themes or the
    website's own templates, or the translation would silently stop showing after an upgrade."""
    import pydata_sphinx_theme
    import sphinx
    import sphinx_book_theme

    sources = [Path(module.__file__).parent for module in (sphinx, pydata_sphinx_theme, sphinx_book_theme)]
    texts = "\n".join(path.read_text(encoding="utf-8", errors="replace") for folder in [*sources, site.WEBSITE_DIR]
                      for path in folder.rglob("*") if path.suffix in {".py", ".html", ".js", ".pot"})
    words = [message(key, "en") for key in entries("en")  # search_bar: the text of a theme option, no lookup
             if key.startswith("theme.") and not key.endswith("_other") and key != "theme.search_bar"]
    words.append(message("theme.search_found_other", "en", n="${resultCount}"))
    assert [word for word in words if word not in texts] == []


# In a browser -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(built: Built) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Quiet, directory=str(built.output)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@dataclass
class Watched:
    """A browser page and everything it reported: console errors and warnings, requests that left the site,
    responses that failed."""

    page: Any
    base: str
    problems: list[str]

    def open(self, path: str) -> None:
        self.page.goto(f"{self.base}/{path}")
        self.page.wait_for_load_state("networkidle")

    def visible_text(self) -> str:
        return self.page.evaluate("""() => {
            const copy = document.body.cloneNode(true);
            copy.querySelectorAll("pre, code, script, style, noscript").forEach((node) => node.remove());
            return copy.innerText; }""")

    def click_where_it_is(self, selector: str) -> None:
        """Click with the mouse where the element shows, without scrolling to it first (as Playwright's click
        would): the element must be in the window at the reader's place."""
        box = self.page.locator(selector).bounding_box()
        assert box is not None and 0 <= box["y"] < 200, f"{selector} is not at the top of the window: {box}"
        self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    def keep(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture(scope="module")
def browser(served: str) -> Iterator[Any]:
    with chromium_browser() as chromium:
        yield chromium


@pytest.fixture
def watched(browser: Any, served: str) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda note: problems.append(f"console {note.type}: {note.text}")
            if note.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("request", lambda request: problems.append(f"left the site: {request.url}")
            if not request.url.startswith(served) else None)
    page.on("response", lambda response: problems.append(f"HTTP {response.status}: {response.url}")
            if response.status >= 400 else None)
    yield Watched(page, served, problems)
    context.close()


@pytest.mark.browser
@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_each_page_loads_cleanly_and_reads_in_its_language(watched: Watched, language: str) -> None:
    for page in (*PAGES, "search", "genindex"):
        watched.open(f"{language}/{page}.html")
        watched.keep(f"{language}-{page}")
        assert watched.problems == [], page
        assert english_lines(watched.visible_text()) == [], page


@pytest.mark.browser
@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_the_lab_page_shows_the_race_plot_and_the_burst(watched: Watched, language: str) -> None:
    watched.open(f"{language}/{LAB_PAGE}.html")
    plots = watched.page.evaluate("""() => [...document.querySelectorAll('img[src*="_images/"]')]
        .map((image) => image.complete && image.naturalWidth > 300)""")
    assert plots == [True]
    text = squeezed(watched.page.evaluate("() => document.body.innerText"))
    assert squeezed(outputs_of(language, "burst-summary")) in text
    assert squeezed(outputs_of(language, "burst-serial").splitlines()[0]) in text
    assert watched.problems == []


@pytest.mark.browser
@pytest.mark.parametrize(("source", "target"), [("de", "pt"), ("pt", "es"), ("es", "de")])
def test_the_language_switcher_keeps_the_section(watched: Watched, source: str, target: str) -> None:
    """From a section reached by its anchor, and from one only scrolled to, the switcher (in the sticky header,
    within reach wherever the reader is) opens the same section."""
    anchor = f"cell-{LAB_PAGE}-md-step3"
    watched.open(f"{source}/{LAB_PAGE}.html#{anchor}")
    assert watched.page.locator('.course-languages [aria-current="page"]').get_attribute("lang") == source
    watched.click_where_it_is(f'a[hreflang="{target}"][data-language-switch]')
    watched.page.wait_for_url(f"**/{target}/{LAB_PAGE}.html#{anchor}")
    heading = watched.page.text_content(f"#{anchor} h2")
    assert heading.strip().rstrip("#").strip() == heading_cells(target, LAB_PAGE)["md-step3"]
    top = watched.page.evaluate(f"() => document.getElementById('{anchor}').getBoundingClientRect().top")
    assert 0 <= top < 450  # the reader is at that section, not at the top of the page

    scrolled = f"cell-{EXERCISES_PAGE}-md-naive"
    watched.open(f"{target}/{EXERCISES_PAGE}.html")
    watched.page.evaluate(f"() => document.getElementById('{scrolled}').scrollIntoView()")
    watched.click_where_it_is(f'a[hreflang="{source}"][data-language-switch]')
    watched.page.wait_for_url(f"**/{source}/{EXERCISES_PAGE}.html#{scrolled}")
    assert watched.problems == []


@pytest.mark.browser
@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_search_finds_the_lab_in_its_language(watched: Watched, language: str) -> None:
    word = heading_cells(language, LAB_PAGE)["md-experiments"].split(":")[0]  # Experimente / Experimentos
    watched.open(f"{language}/search.html?q={word}")
    watched.page.wait_for_selector(f'#search-results a[href*="{LAB_PAGE}.html"]', timeout=15_000)
    watched.page.wait_for_selector("#search-results .search-summary:not(:empty)", timeout=15_000)
    watched.keep(f"{language}-search-{word}")
    summary = watched.page.text_content("#search-results .search-summary")
    found = watched.page.locator("#search-results ul.search > li").count()
    expected = describe(plural("theme.search_found", found), language)  # the form the catalog's plural rule picks
    assert (summary, watched.page.text_content("#search-results h2")) == (
        expected, message("theme.search_results", language))
    assert english_lines(watched.visible_text()) == []

    watched.open(f"{language}/search.html?q=zzqxwv")
    watched.page.wait_for_selector("#search-results .search-summary:not(:empty)", timeout=15_000)
    assert watched.page.text_content("#search-results .search-summary") == message("theme.search_nothing", language)
    assert watched.problems == []


@pytest.mark.browser
@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_on_a_phone_nothing_overflows_and_the_switcher_shows_codes(watched: Watched, language: str) -> None:
    watched.page.set_viewport_size({"width": 390, "height": 800})
    for page in PAGES:
        watched.open(f"{language}/{page}.html")
        assert watched.page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), page
        codes = watched.page.locator(".course-languages .course-language-code:visible").all_inner_texts()
        assert codes == [code.upper() for code in COURSE_LANGUAGES], page
    watched.keep(f"{language}-phone")
    assert watched.problems == []


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_outputs_wrap_and_the_plot_reads_at_any_width(watched: Watched, width: int) -> None:
    """No output block scrolls sideways (they wrap, as in JupyterLab); the race plot's words are at least 10 px at
    a desktop's width and it is a link to the image itself, which a phone can zoom into."""
    watched.page.set_viewport_size({"width": width, "height": 900})
    for language in COURSE_LANGUAGES:
        watched.open(f"{language}/{LAB_PAGE}.html")
        wide = watched.page.evaluate("""() => [...document.querySelectorAll('div.cell_output pre')]
            .filter((block) => block.scrollWidth > block.clientWidth + 1)
            .map((block) => block.innerText.slice(0, 60))""")
        assert wide == [], (language, width)
        plot = watched.page.evaluate("""() => { const image = document.querySelector('img[src*="_images/"]');
            const link = image.closest('a');
            return {scale: image.clientWidth / image.naturalWidth, link: link ? link.getAttribute('href') : null,
                    src: image.getAttribute('src')}; }""")
        assert plot["link"] == plot["src"] and plot["src"].endswith(".svg"), plot
        if width >= 1280:
            assert PLOT_FONT * plot["scale"] >= 10, plot
        assert watched.page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        searches = watched.page.locator(".search-button-field:visible, .search-button:visible").count()
        assert searches == 1, (language, width, searches)  # one way to search (it was twice, under an empty bar)
    assert watched.problems == []


@pytest.mark.browser
def test_a_lab_page_loads_under_its_weight_budget(watched: Watched) -> None:
    """What a reader's browser fetches for a lab page stays under its budget (it was 2.75 MB, 57 % of it the theme's
    icon script with every icon of Font Awesome); the icons are still drawn, from the theme's own web font."""
    sizes: list[int] = []
    watched.page.on("response", lambda response: sizes.append(len(response.body()))
                    if response.ok and response.request.method == "GET" else None)
    watched.open(f"de/{LAB_PAGE}.html")
    assert 100_000 < sum(sizes) < PAGE_BUDGET, sum(sizes)
    icons = watched.page.evaluate("""async () => { await document.fonts.ready;
        return [...document.querySelectorAll('.bd-header-article .btn [class*="fa-"]')]
          .filter((icon) => icon.offsetParent !== null)
          .map((icon) => [getComputedStyle(icon, '::before').content, icon.getBoundingClientRect().width,
                          getComputedStyle(icon).fontFamily]); }""")
    assert len(icons) >= 6, icons  # launch, repository, download, full screen, colour mode, the sidebar toggle
    assert all(content not in ("none", "normal", '""') and width > 8 and "Font Awesome" in family
               for content, width, family in icons), icons
    assert watched.page.evaluate("() => document.fonts.check('900 16px \"Font Awesome 7 Free\"')")
    assert watched.problems == []


@pytest.mark.browser
def test_the_front_page_leads_to_each_language(watched: Watched) -> None:
    for language in COURSE_LANGUAGES:
        watched.open("index.html")
        watched.page.click(f'a[href="{language}/index.html"]')
        watched.page.wait_for_url(f"**/{language}/index.html")
        assert watched.page.evaluate("() => document.documentElement.lang").split("-")[0] == language
    watched.open("index.html")
    assert english_lines(watched.visible_text()) == []
    watched.keep("front")
    assert watched.problems == []


def test_the_theme_words_are_message_catalogs_not_patches(tmp_path: Path) -> None:
    """The course's words reach Sphinx as catalogs it reads itself (gettext .mo per domain, the search page's
    sphinx.js); nothing writes into a translator's private state or patches the search script at run time."""
    import gettext

    from reservation_lab.website import sphinx_extension, theme_words

    folder = theme_words.write_locale("de", tmp_path / "locale")
    for domain in theme_words.DOMAINS:
        words = gettext.translation(domain, localedir=folder, languages=["de"])
        assert words.gettext("Toggle primary sidebar") == message("theme.primary_sidebar", "de")
    script = (folder / "de" / "LC_MESSAGES" / "sphinx.js").read_text(encoding="utf-8")
    catalog = json.loads(script.removeprefix("Documentation.addTranslations(").removesuffix(");\n"))
    assert catalog["messages"][message("theme.search_results", "en")] == message("theme.search_results", "de")
    assert "" not in catalog["messages"].values() and catalog["plural_expr"] == "[1].includes(n) ? 0 : 1"
    source = Path(sphinx_extension.__file__).read_text(encoding="utf-8")
    assert "._catalog" not in source and "TRANSLATIONS" not in source
