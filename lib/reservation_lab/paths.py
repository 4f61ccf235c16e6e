"""Locations inside the repository, resolved from this package, never from the current directory."""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent.parent
WORKER_DIR = REPO_ROOT / "worker"
WORKER_SRC = WORKER_DIR / "src"
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
RUNS_DIR = REPO_ROOT / ".runs"
