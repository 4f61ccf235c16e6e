"""The course as a static website (`./lab site`): the committed notebooks rendered by Sphinx, MyST-NB and the
Book theme, offline, in every course language.

Each language is its own Sphinx build (its search index and stemmer, Sphinx's and the theme's words in that
language) of a staged folder: the lab and exercises notebooks with their stored, nbval-checked outputs (nothing runs
while the site is built), each text cell given a language-neutral anchor `cell-<page>-<cell id>` (the language
switcher keeps the reader's place with it), and an index page written from the catalogs' [site] sentences.
A front page links the languages. The configuration is website/conf.py (with website/sphinx_extension.py).

    python -m reservation_lab site [--output build/site] [--repository https://github.com/OWNER/NAME]
                                   [--branch main] [--jupyterhub https://hub.example.edu]

`--repository` adds the repository and Binder launch buttons (and `--jupyterhub` a JupyterHub one, through
nbgitpuller); without it the pages have no launch buttons. Builds the languages in parallel, in well under a minute.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from reservation_lab.authoring.builder import NOTEBOOKS
from reservation_lab.i18n import COURSE_LANGUAGES, language_name, message
from reservation_lab.paths import NOTEBOOKS_DIR, REPO_ROOT
from reservation_lab.website.shared_assets import share_assets
from reservation_lab.website.theme_words import sphinx_locale, write_locale

WEBSITE_DIR = REPO_ROOT / "website"
DEFAULT_OUTPUT = REPO_ROOT / "build" / "site"
LAB_PAGE, EXERCISES_PAGE = (Path(notebook.file_name).stem for notebook in NOTEBOOKS)
GITHUB = re.compile(r"^https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")  # Binder's gh provider
BRANCH = re.compile(r"^[^\s~^:?*\[\\]+$")  # git's refname rules, the characters that matter in a URL
MARKER = ".reservation-lab-site"  # in every site this command builds: only such a folder is ever replaced
FIGURE = "site.figure_{}"  # a figure's alt text: the catalog entry named after its cell (race-plot: figure_race_plot)
NOT_PUBLISHED = ("*.map",)  # the theme's source maps: half the site, read only by a debugger
BUILD_TIMEOUT = 300  # seconds for the parallel Sphinx builds together (about 3 here: bench/bench_site.py)


class SiteError(Exception):
    """The website could not be built; the message says why and what to do."""


@dataclass(frozen=True)
class Launch:
    """Where the launch buttons point: the repository on GitHub (Binder), its branch, optionally a JupyterHub."""

    repository: str | None = None
    branch: str = "main"
    jupyterhub: str | None = None

    def __post_init__(self) -> None:
        if self.repository and not github_repository(self.repository):
            raise SiteError(f"--repository must look like https://github.com/OWNER/NAME (Binder builds it from "
                            f"GitHub; no .git at the end), not {self.repository!r}")
        if not BRANCH.match(self.branch):
            raise SiteError(f"--branch must name a branch (no spaces), not {self.branch!r}")
        if self.jupyterhub and not self.jupyterhub.startswith("https://"):
            raise SiteError(f"--jupyterhub must be the hub's https:// address, not {self.jupyterhub!r}")
        if self.jupyterhub and not self.repository:
            raise SiteError("--jupyterhub needs --repository: the hub pulls the course from it (nbgitpuller)")


def github_repository(url: str) -> bool:
    """https://github.com/OWNER/NAME, neither part only dots, the name without .git (Binder adds nothing)."""
    if not GITHUB.match(url):
        return False
    owner, name = url.rsplit("/", 2)[1:]
    return bool(owner.strip(".") and name.strip(".")) and not name.endswith(".git")


def title(notebook: dict[str, Any]) -> str:
    """The notebook's title: the first line of its first cell, without the `#`."""
    return "".join(notebook["cells"][0]["source"]).splitlines()[0].lstrip("# ").strip()


def read_notebook(language: str, page: str) -> dict[str, Any]:
    path = NOTEBOOKS_DIR / language / f"{page}.ipynb"
    if not path.exists():
        raise SiteError(f"{path.relative_to(REPO_ROOT)} is missing: run `python -m reservation_lab build` first")
    return json.loads(path.read_text(encoding="utf-8"))


def anchored(notebook: dict[str, Any], page: str, language: str) -> dict[str, Any]:
    """A copy whose text cells carry their language-neutral anchor (the cell id: the same cells in every language,
    whatever headings a language gives them), whose figures say what they show (alt text), its code highlighted by
    `lab-cell`. Only the site reads it: the download button offers the committed notebook."""
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            cell = {**cell, "source": f"(cell-{page}-{cell['id']})=\n{''.join(cell['source'])}"}
        elif any("image/svg+xml" in output.get("data", {}) for output in cell.get("outputs", [])):
            alt = {"mystnb": {"image": {"alt": message(FIGURE.format(cell["id"].replace("-", "_")), language),
                                        "width": "100%"}}}  # scaled: Sphinx links it to the image itself
            cell = {**cell, "metadata": {**cell["metadata"], **alt}}
        cells.append(cell)
    language_info = {**notebook["metadata"].get("language_info", {}), "pygments_lexer": "lab-cell"}
    return {**notebook, "cells": cells, "metadata": {**notebook["metadata"], "language_info": language_info}}


def index_page(language: str, titles: dict[str, str], launch: Launch) -> str:
    """The language's index page (MyST Markdown): what the course is, its two notebooks, how to run it."""
    def say(key: str, **values: Any) -> str:
        return message(f"site.{key}", language, **values)

    clone = []
    if launch.repository:
        clone = [f"git clone {launch.repository}.git", f"cd {launch.repository.rsplit('/', 1)[1]}"]
    commands = "\n".join([*clone, "./lab jupyter", f"./lab run --language {language}", "./lab test"])
    online = ""
    if launch.repository:
        hub = f" {say('jupyterhub', url=launch.jupyterhub)}" if launch.jupyterhub else ""
        online = f"## {say('online_heading')}\n\n{say('binder')}{hub}\n"
    return f"""# {say('about')}

{say('lead')}

```{{toctree}}
:hidden:

{LAB_PAGE}
{EXERCISES_PAGE}
```

- [{titles[LAB_PAGE]}]({LAB_PAGE}.ipynb)

  {say('lab')}

- [{titles[EXERCISES_PAGE]}]({EXERCISES_PAGE}.ipynb)

  {say('exercises')}

{say('outputs')}

## {say('run_heading')}

{say('run_local', notebook=f"{language}/{LAB_PAGE}.ipynb")}

```bash
{commands}
```

{say('needs')}

{online}"""


def stage(language: str, folder: Path, launch: Launch, languages: tuple[str, ...]) -> str:
    """One language's Sphinx source: its anchored notebooks, the index page and site.json; returns the lab
    notebook's title (the front page shows it)."""
    folder.mkdir(parents=True)
    titles = {}
    for page in (LAB_PAGE, EXERCISES_PAGE):
        notebook = read_notebook(language, page)
        titles[page] = title(notebook)
        (folder / f"{page}.ipynb").write_text(json.dumps(anchored(notebook, page, language), ensure_ascii=False),
                                              encoding="utf-8")
    (folder / "index.md").write_text(index_page(language, titles, launch), encoding="utf-8")
    write_locale(language, folder / "locale")
    settings = {"language": language, "title": titles[LAB_PAGE], "switcher": message("site.switcher", language),
                "footer": message("site.licence", language), "search_bar": message("theme.search_bar", language),
                "languages": [{"code": code, "name": language_name(code)} for code in languages],
                "repository": launch.repository, "branch": launch.branch, "jupyterhub": launch.jupyterhub,
                "path_to_docs": f"notebooks/{language}"}
    (folder / "site.json").write_text(json.dumps(settings, ensure_ascii=False, indent=1), encoding="utf-8")
    return titles[LAB_PAGE]


def sphinx_command(language: str, source: Path, output: Path, doctrees: Path) -> list[str]:
    """One language's build: warnings are errors (a broken link or heading fails the site, not a reader)."""
    return [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going", "-c", str(WEBSITE_DIR),
            "-d", str(doctrees), "-D", f"language={sphinx_locale(language)}", str(source), str(output)]


def front_page(titles: dict[str, str], launch: Launch = Launch()) -> str:
    """The front page: the course's name (its products' names, the same in every language), the repository when
    given, and each language's name, title (a link to its section) and lead, in that language."""
    shown = [{"code": code, "lang": sphinx_locale(code).replace("_", "-"), "name": language_name(code),
              "title": lab_title, "lead": message("site.lead", code)} for code, lab_title in titles.items()]
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(WEBSITE_DIR), autoescape=True)
    return environment.get_template("landing.html").render(languages=shown, repository=launch.repository)


def check_replaceable(output: Path) -> None:
    """Refuse an output folder that is not empty and not a site this command built: it would be deleted."""
    if output.is_symlink():
        raise SiteError(f"{output} is a symbolic link: give --output the folder itself")
    if output.exists() and (not output.is_dir() or (any(output.iterdir()) and not (output / MARKER).exists())):
        raise SiteError(f"{output} exists and is not a website built by ./lab site; its contents would be replaced: "
                        f"choose a new or empty folder with --output")


def run_builds(staged: Path, languages: tuple[str, ...]) -> dict[str, Path]:
    """Build every staged language at once, each in its own folder (MyST-NB writes its jupyter_execute/ beside
    the HTML, which would be shared otherwise), within one deadline; no build outlives this call. Returns each
    language's HTML folder, whose notebook downloads are the committed notebooks."""
    html = {language: staged / "builds" / language / "html" for language in languages}
    deadline = time.monotonic() + BUILD_TIMEOUT
    builds: dict[str, subprocess.Popen[str]] = {}
    failures = []
    try:
        for language in languages:
            builds[language] = subprocess.Popen(
                sphinx_command(language, staged / "source" / language, html[language],
                               staged / "builds" / language / "doctrees"),
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=staged)
        for language, process in builds.items():
            try:
                log, _ = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                failures.append(f"[{language}] stopped after {BUILD_TIMEOUT} s")
                continue
            if process.returncode != 0:
                failures.append(f"[{language}] {log.strip()}")
    finally:
        for process in builds.values():
            if process.poll() is None:
                process.kill()
                process.communicate()
    if failures:
        raise SiteError("Sphinx could not build the website:\n" + "\n".join(failures))
    for language in languages:
        for page in (LAB_PAGE, EXERCISES_PAGE):
            shutil.copyfile(NOTEBOOKS_DIR / language / f"{page}.ipynb", html[language] / "_sources" / f"{page}.ipynb")
    return html


def beside(output: Path, role: str) -> Path:
    """A fresh folder next to `output` (same file system: a rename moves it), left over from no earlier run."""
    folder = output.with_name(f".{output.name}.{role}")
    if folder.exists():
        shutil.rmtree(folder)
    return folder


def replace_folder(incoming: Path, output: Path) -> None:
    """Put the assembled site at `output` by renames (the old site moves aside first, then goes)."""
    outgoing = beside(output, "old")
    if output.exists():
        output.rename(outgoing)
    incoming.rename(output)
    if outgoing.exists():
        shutil.rmtree(outgoing)


def build_site(output: Path = DEFAULT_OUTPUT, launch: Launch = Launch(),
               languages: tuple[str, ...] = COURSE_LANGUAGES) -> Path:
    """Build the website into `output` (replaced only once every language has built; refused if it holds anything
    but an earlier site of this command); returns its front page. Raises SiteError with Sphinx's words."""
    check_replaceable(output)
    with tempfile.TemporaryDirectory(prefix="reservation-lab-site-") as scratch:
        staged = Path(scratch)
        titles = {language: stage(language, staged / "source" / language, launch, languages)
                  for language in languages}
        built = run_builds(staged, languages)
        output.parent.mkdir(parents=True, exist_ok=True)
        site = beside(output, "new")
        for language, html in built.items():
            shutil.copytree(html, site / language,
                            ignore=shutil.ignore_patterns(".buildinfo", ".doctrees", *NOT_PUBLISHED))
        share_assets(site, tuple(built))
        (site / "index.html").write_text(front_page(titles, launch), encoding="utf-8")
        (site / ".nojekyll").write_text("")  # GitHub Pages: serve _static/ and _images/ as they are
        (site / MARKER).write_text("Built by ./lab site; the next ./lab site replaces this whole folder.\n")
        replace_folder(site, output)
    return output / "index.html"
