"""What the runtime needs of a run folder; domain.runs.RunFolder provides it (runtime never imports domain)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class RunLayout(Protocol):
    """A run folder: where wrangler runs, its config, its SQLite state and its logs."""

    @property
    def root(self) -> Path: ...
    @property
    def config(self) -> Path: ...
    @property
    def state_dir(self) -> Path: ...
    @property
    def logs_dir(self) -> Path: ...
