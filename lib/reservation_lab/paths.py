"""Locations inside the course's checkout, resolved from this package, never from the current directory.

The package runs from its checkout (the Worker, the notebooks, the pinned wrangler and the `lab` script are beside
it): an editable install, as `./lab setup` makes. Installed as a copy (`pip install .`, a wheel), it finds the
checkout only when RESERVATION_LAB_CHECKOUT names it, and otherwise refuses at import with one sentence that says
what to do, instead of failing later on a file it cannot find.
"""

import os
from pathlib import Path

from reservation_lab.i18n import message

CHECKOUT_ENV = "RESERVATION_LAB_CHECKOUT"
PACKAGE_DIR = Path(__file__).resolve().parent


def is_checkout(folder: Path) -> bool:
    """A folder holding the course: the Worker's config and the front-door script."""
    return (folder / "worker" / "wrangler.jsonc").is_file() and (folder / "lab").is_file()


def find_checkout() -> Path:
    """The checkout this package belongs to (`lib/reservation_lab` inside it), else RESERVATION_LAB_CHECKOUT."""
    beside = PACKAGE_DIR.parent.parent
    if is_checkout(beside):
        return beside
    named = os.environ.get(CHECKOUT_ENV, "")
    folder = Path(named).expanduser().resolve() if named else None
    if folder is not None and is_checkout(folder):
        return folder
    key = "errors.not_a_checkout_named" if named else "errors.not_a_checkout"
    raise ImportError(message(key, None, package=PACKAGE_DIR, env=CHECKOUT_ENV, named=named))


REPO_ROOT = find_checkout()
WORKER_DIR = REPO_ROOT / "worker"
WORKER_SRC = WORKER_DIR / "src"
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
RUNS_DIR = REPO_ROOT / ".runs"
