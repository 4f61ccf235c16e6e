"""The package's layers (import-linter's contracts in pyproject.toml): imports point one way only, no cycles; every
subpackage says its job; small modules and functions."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

from reservation_lab.paths import PACKAGE_DIR, REPO_ROOT

MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(package_parent: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's contracts in pyproject.toml (layers, no cycles) over the package found in package_parent."""
    return subprocess.run([str(LINT_IMPORTS), "--config", str(REPO_ROOT / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, timeout=60, cwd=package_parent,
                          env={**os.environ, "PYTHONPATH": str(package_parent)})


def test_imports_point_down_the_layers_and_form_no_cycle() -> None:
    checked = lint_imports(PACKAGE_DIR.parent)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "2 kept, 0 broken" in checked.stdout


def test_the_layer_contracts_can_fail(tmp_path: Path) -> None:
    """A planted upward import, a sibling import, a planted cycle and an unplaced subpackage are all found."""
    package = tmp_path / "reservation_lab"
    shutil.copytree(PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    plant = {"runtime/ports.py": "import reservation_lab.course.display",
             "race/demo.py": "import reservation_lab.cloud.steps",
             "cloud/verify.py": "import reservation_lab.cloud.steps"}
    for name, line in plant.items():
        (package / name).write_text(line + "\n" + (package / name).read_text())
    (package / "unplaced").mkdir()
    (package / "unplaced" / "__init__.py").write_text("")
    checked = lint_imports(tmp_path)
    assert checked.returncode != 0
    for found in ("reservation_lab.runtime.ports -> reservation_lab.course.display",
                  "reservation_lab.race.demo -> reservation_lab.cloud.steps",
                  "reservation_lab.unplaced", "0 kept, 2 broken"):
        assert found in checked.stdout, checked.stdout


def sources() -> dict[str, Path]:
    def module_name(path: Path) -> str:
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    return {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def test_subpackages_say_what_they_are_for_and_may_import() -> None:
    for init in sorted(PACKAGE_DIR.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert len(doc) > 80 and "import" in doc, f"{init.parent.name}/__init__.py needs its one-paragraph docstring"


def test_modules_and_functions_are_small() -> None:
    too_long = []
    for name, path in sources().items():
        tree = ast.parse(path.read_text())
        lines = len(path.read_text().splitlines())
        if lines > MAX_MODULE_LINES:
            too_long.append(f"{name}: {lines} lines")
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}.{node.name}: {length} lines")
    assert too_long == []
