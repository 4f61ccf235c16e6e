"""A digest of the Durable Object storage: every SQLite file under `<state>/v3/do/`, its rows and its raw bytes."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from reservation_lab.errors import LabError


@dataclass(frozen=True)
class StateDigest:
    """The Durable Object storage: per SQLite file, a digest of its rows and of its raw bytes."""

    rows: dict[str, str]  # file (relative to the state folder) -> sha256 of schema and rows
    raw: dict[str, str]  # file -> sha256 of the .sqlite and -wal bytes

    @property
    def combined(self) -> str:
        return hashlib.sha256(json.dumps(self.rows, sort_keys=True).encode()).hexdigest()


def durable_digest(state_dir: Path) -> StateDigest:
    """Digest every SQLite file under `<state_dir>/v3/do/`, read from a copy (with its WAL) by Python's sqlite3."""
    files = sorted((state_dir / "v3" / "do").rglob("*.sqlite"))
    if not files:
        raise LabError("drills.no_sqlite_files", folder=state_dir / "v3" / "do")
    rows: dict[str, str] = {}
    raw: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="bad-input-digest-") as scratch:
        for index, file in enumerate(files):
            name = str(file.relative_to(state_dir))
            target = Path(scratch) / f"{index}.sqlite"
            raw_hash = hashlib.sha256()
            for suffix in ("", "-wal"):
                source = Path(f"{file}{suffix}")
                if source.exists():
                    shutil.copyfile(source, f"{target}{suffix}")
                    raw_hash.update(source.read_bytes())
            raw[name] = raw_hash.hexdigest()
            rows[name] = _rows_digest(target)
    return StateDigest(rows, raw)


def _rows_digest(path: Path) -> str:
    digest = hashlib.sha256()
    conn = sqlite3.connect(path)
    try:
        tables = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
        digest.update(repr(tables).encode())
        for kind, name, _, _ in tables:
            if kind == "table":
                quoted = '"' + name.replace('"', '""') + '"'
                rows = sorted(repr(row) for row in conn.execute(f"SELECT * FROM {quoted}"))
                digest.update(f"{name}:{len(rows)}\n".encode() + "\n".join(rows).encode())
    finally:
        conn.close()
    return digest.hexdigest()
