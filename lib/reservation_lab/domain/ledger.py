"""The check ledger: every check a notebook makes (label, passed, expected, actual), for a teacher's `./lab mark`.

A learner stops at the first failed check (`check_equal` raises). In a record-only run (the parameter `record_only =
True`) a failed check is recorded, shown, and the notebook goes on. The ledger is kept in the run folder: `ledger.json`,
rewritten after every check (a notebook that stops later still leaves what it checked), and in `report.json`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEDGER_FILE = "ledger.json"


def plain(value: Any) -> Any:
    """A value as JSON can hold it: records as dicts (anything with as_dict()), the rest as it is or as text."""
    if hasattr(value, "as_dict"):
        value = value.as_dict()
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


@dataclass
class Ledger:
    """The checks of one notebook session, in order (the session owns it: two sessions, two ledgers);
    `record_only` says whether a failed check stops the cell."""

    record_only: bool = False
    path: Path | None = None  # the run's ledger.json (LEDGER_FILE); None: in memory only
    entries: list[dict[str, Any]] = field(default_factory=list)

    def record(self, label: str, passed: bool, expected: Any, actual: Any) -> None:
        self.entries.append({"label": label, "passed": passed, "expected": plain(expected),
                             "actual": plain(actual)})
        if self.path is not None and self.path.parent.exists():
            self.path.write_text(json.dumps(self.entries, indent=2, ensure_ascii=False) + "\n")

