"""How long `./lab site` takes: the whole website, every language, against Sphinx's floor on this machine.

Run (with the course's venv): python bench/bench_site.py [--quick]

The baseline is the floor of any Sphinx site, measured in the same run: `python -m sphinx` building a one-page
Markdown project with the same extensions and theme (website/conf.py), so the ratio says what the course's pages
cost on top of starting Sphinx, MyST-NB and the Book theme. Prints the seconds of one language alone and of the
whole site (every language, built in parallel, plus the front page), and their ratios to the floor. The issue's
bound is the whole site in under a minute. `--quick`: the floor and one language.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

from common import load_line, machine_line, print_ratio, timed

from reservation_lab.i18n import COURSE_LANGUAGES
from reservation_lab.website.build import WEBSITE_DIR, build_site


def sphinx_floor(folder: Path) -> None:
    """A one-page project built with the website's configuration: Sphinx's fixed cost."""
    source = folder / "floor"
    source.mkdir()
    (source / "index.md").write_text("# Floor\n\nOne page.\n")
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(WEBSITE_DIR), "-D", "language=de",
                    str(source), str(folder / "floor-html")], check=True, timeout=300)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the floor and one language")
    args = parser.parse_args(argv)
    print(machine_line())
    print(load_line("before"))
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        folder = Path(tmp)
        floor, _ = timed(partial(sphinx_floor, folder))
        print(f"  baseline: Sphinx floor (one Markdown page, the website's theme) {floor:.2f} s")
        one, _ = timed(partial(build_site, folder / "one", languages=COURSE_LANGUAGES[:1]))
        print(f"  one language ({COURSE_LANGUAGES[0]}): {one:.2f} s")
        print_ratio("site one language/sphinx floor", one, floor, " s")
        if not args.quick:
            whole, _ = timed(partial(build_site, folder / "all"))
            print(f"  whole site ({len(COURSE_LANGUAGES)} languages in parallel, front page): {whole:.2f} s")
            print_ratio("site all languages/sphinx floor", whole, floor, " s")
            print_ratio("site all languages/one language", whole, one)
    print(load_line("after"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
