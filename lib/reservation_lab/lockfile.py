"""The Python lock: requirements.lock is uv's universal, hashed resolution of pyproject.toml's dependencies.

`./lab` installs from it (`pip install --require-hashes`), so the course installs the same way next year. Its
first line records a digest of the ranges it was resolved from; `check` refuses a lock out of step with
pyproject.toml in one sentence. Standard library only: `./lab` runs this file before the package is installed.

    python lib/reservation_lab/lockfile.py check    exit 1 (one sentence) when the lock is out of step
    python lib/reservation_lab/lockfile.py write    resolve again with uv (pip install uv) and rewrite the lock
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "requirements.lock"
HEADER = "# pyproject.toml dependencies digest: "
COMPILE = ["pip", "compile", "pyproject.toml", "--all-extras", "--universal", "--generate-hashes",
           "--python-version", "3.11", "--no-header", "--quiet"]
OUT_OF_STEP = ("requirements.lock is out of step with pyproject.toml's dependencies: run "
               "`.venv/bin/python lib/reservation_lab/lockfile.py write` (it needs `pip install uv`) and commit "
               "the new lock.")


def declared_digest(pyproject: Path = PYPROJECT) -> str:
    """A digest of the dependency ranges (runtime and extras) pyproject.toml declares."""
    project = tomllib.loads(pyproject.read_text())["project"]
    declared = {"dependencies": project.get("dependencies", []),
                "optional-dependencies": project.get("optional-dependencies", {}),
                "requires-python": project.get("requires-python")}
    return hashlib.sha256(json.dumps(declared, sort_keys=True).encode()).hexdigest()[:16]


def recorded_digest(lock: Path = LOCK) -> str | None:
    """The digest the lock's first line records (None without a lock or header)."""
    if not lock.exists():
        return None
    first = lock.read_text().split("\n", 1)[0]
    return first[len(HEADER):].strip() if first.startswith(HEADER) else None


def in_step(pyproject: Path | None = None, lock: Path | None = None) -> bool:
    """Whether the lock was resolved from the ranges pyproject.toml declares today."""
    return recorded_digest(lock or LOCK) == declared_digest(pyproject or PYPROJECT)


def write(uv: str = "uv") -> Path:
    """Resolve pyproject.toml again with uv and write the lock with its digest line. The versions already locked
    are kept where the new ranges allow them (uv prefers the pins of the file it writes to): a changed range moves
    only what it must, never a package nobody asked to upgrade."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "requirements.lock"
        if LOCK.exists():
            out.write_text(LOCK.read_text())
        subprocess.run([uv, *COMPILE, "-o", str(out)], cwd=ROOT, check=True, timeout=600)
        resolved = out.read_text()
    LOCK.write_text(f"{HEADER}{declared_digest()}\n# written by: uv {' '.join(COMPILE)}\n{resolved}")
    return LOCK


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "write":
        print(f"wrote {write(str(Path(sys.executable).parent / 'uv'))}")
        return 0
    if not in_step():
        print(OUT_OF_STEP, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
