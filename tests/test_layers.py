"""The package's layers: imports point one way only, no cycles, small modules and functions."""

from __future__ import annotations

import ast
from pathlib import Path

from reservation_lab.paths import PACKAGE_DIR

# Lowest first. A module may import its own subpackage and any lower layer, never a higher one or a sibling.
LAYERS: list[set[str]] = [
    {"i18n"},
    {"errors", "paths", "lockfile"},
    {"runtime"},
    {"domain"},
    {"race", "cloud", "cloudflare_double", "experiments"},
    {"drills"},
    {"course"},
    {"authoring"},
    {"cli"},
    {"__main__"},
]
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def imports_of(path: Path, name: str) -> set[str]:
    """Every reservation_lab module the file imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x / from .a import b
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {module for module in found if module.startswith("reservation_lab")}


def graph() -> dict[str, set[str]]:
    modules = sources()
    return {name: {m for m in imports_of(path, name) if m in modules and m != name} for name, path in modules.items()}


def layer_of(module: str) -> tuple[int, str]:
    top = module.split(".")[1] if "." in module else "__init__"
    for rank, members in enumerate(LAYERS):
        if top in members:
            return rank, top
    return -1, top


def test_every_module_belongs_to_a_layer() -> None:
    unplaced = [m for m in graph() if m != "reservation_lab" and layer_of(m)[0] < 0]
    assert unplaced == [], f"add these to LAYERS: {unplaced}"


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    """Imports of a higher layer or of a sibling subpackage in the same layer."""
    wrong = []
    for module, targets in edges.items():
        if module == "reservation_lab":
            continue
        rank, top = layer_of(module)
        for target in sorted(targets):
            target_rank, target_top = layer_of(target)
            if target_top != top and target_rank >= rank:
                wrong.append(f"{module} -> {target}")
    return wrong


def cycles_in(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk meets, as the modules along it."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(trail[trail.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return cycles


def test_imports_point_down_the_layers_only() -> None:
    assert upward_imports(graph()) == []


def test_no_import_cycle() -> None:
    assert cycles_in(graph()) == []


def test_the_layer_checks_can_fail() -> None:
    """A planted upward import, a sibling import and a planted cycle are all found."""
    planted = {
        "reservation_lab.runtime.ports": {"reservation_lab.course.display", "reservation_lab.errors"},
        "reservation_lab.race.demo": {"reservation_lab.cloud.steps"},
        "reservation_lab.cloud.steps": {"reservation_lab.cloud.verify"},
        "reservation_lab.cloud.verify": {"reservation_lab.cloud.steps"},
    }
    assert upward_imports(planted) == ["reservation_lab.runtime.ports -> reservation_lab.course.display",
                                       "reservation_lab.race.demo -> reservation_lab.cloud.steps"]
    assert cycles_in(planted) == [["reservation_lab.cloud.steps", "reservation_lab.cloud.verify",
                                   "reservation_lab.cloud.steps"]]
    assert "reservation_lab.errors" in imports_of(PACKAGE_DIR / "runtime" / "ports.py", "reservation_lab.runtime.ports")


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
