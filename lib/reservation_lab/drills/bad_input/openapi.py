"""The contract's source: `worker/openapi.yaml` read once, its `$ref`s resolved, its patterns as Python means them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from reservation_lab.errors import LabError
from reservation_lab.i18n import quoted
from reservation_lab.paths import WORKER_DIR

OPENAPI = WORKER_DIR / "openapi.yaml"
OPERATIONS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")  # OpenAPI's method keys


def load_openapi(path: Path = OPENAPI) -> dict[str, Any]:
    """The OpenAPI document as a dict (YAML)."""
    import yaml

    try:
        return yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise LabError("drills.openapi_unreadable", path=path, error=exc) from exc


def resolve_refs(node: Any, root: dict[str, Any]) -> Any:
    """A copy of `node` with every local `$ref` replaced by what it points to (the document has no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node:
            target: Any = root
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return resolve_refs(target, root)
        return {key: resolve_refs(value, root) for key, value in node.items()}
    if isinstance(node, list):
        return [resolve_refs(item, root) for item in node]
    return node


def python_pattern(pattern: str) -> str:
    """An ECMA-262 pattern as Python means it: a final `$` becomes `\\Z` (JS `$` never matches before a newline)."""
    return pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith(r"\$") else pattern


def python_patterns(node: Any) -> Any:
    """A copy of a schema (or document) with every `pattern` made a Python pattern."""
    if isinstance(node, dict):
        return {k: python_pattern(v) if k == "pattern" and isinstance(v, str) else python_patterns(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [python_patterns(item) for item in node]
    return node


def length_bounds(pattern: str) -> tuple[int, int]:
    """(min, max) length of `^[class][class]{m,n}$`-shaped patterns: (m + 1, n + 1)."""
    match = re.fullmatch(r"\^\[[^\]]+\]\[[^\]]+\]\{(\d+),(\d+)\}\$", pattern)
    if not match:
        raise LabError("drills.pattern_shape", pattern=quoted(pattern))
    return int(match[1]) + 1, int(match[2]) + 1
