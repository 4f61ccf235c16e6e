"""Style: ruff (configured in pyproject.toml) over the course's Python code."""

from __future__ import annotations

import subprocess
import sys

from reservation_lab.paths import REPO_ROOT

CHECKED = [name for name in ("lib", "tests", "bench") if (REPO_ROOT / name).is_dir()]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the venv's ruff in the repository root."""
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=120)


def test_checked_dirs_exist() -> None:
    """At least the package and the tests are checked."""
    assert {"lib", "tests"} <= set(CHECKED)


def test_no_pyflakes_or_syntax_errors() -> None:
    """No undefined names, unused imports or syntax errors anywhere (ruff's F and E9 rules)."""
    result = ruff("check", "--no-cache", "--select", "F,E9", *CHECKED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_check_is_clean() -> None:
    """`ruff check lib tests bench` (the dirs that exist) exits 0."""
    result = ruff("check", "--no-cache", *CHECKED)
    assert result.returncode == 0, result.stdout + result.stderr
