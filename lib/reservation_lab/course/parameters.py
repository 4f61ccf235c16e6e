"""The notebook's parameters (papermill's one `parameters` cell): their defaults, once.

The builder writes the parameters cell from DEFAULTS (with the notebook's language); `./lab run`, `./lab local`
and run_course take their defaults from here too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from reservation_lab.domain.facts import BURST_SIZE
from reservation_lab.errors import LabError

DEFAULTS: dict[str, Any] = {
    "cloud": False,  # False: local only; True: your Cloudflare account; "rehearsal": a local stand-in for it
    "account_name": "LabEx Learning",
    "workshop": "launch-day",
    "burst_size": BURST_SIZE,
    "experiments": True,  # the five experiments after step 4 (runs that test something else pass False)
    "port": 0,
    "workdir": "",
    "language": "de",
    "pause_before_cleanup": True,  # a real-cloud Run All stops before step 7 (papermill runs pass False)
    "record_only": False,  # a teacher's run (./lab mark): every check recorded in report.json, none stops the run
}


EXERCISE_DEFAULTS: dict[str, Any] = {  # the exercises notebook's parameters
    "language": "de",
    "workdir": "",
    "solutions": False,  # True: grade the reference solutions instead of the cells' files (papermill, tests)
    "seed": 0,  # the grader's search: the same seed finds the same failing workload again
    "workloads": 30,  # how many workloads a grade generates at most (more: slower, more thorough)
    "grade_seconds": 50,  # how long a grade may search and shrink
    "record_only": False,  # a teacher's run (./lab mark): every grade recorded in report.json
}


def check_known(names: Iterable[str], defaults: dict[str, Any] = DEFAULTS) -> None:
    """Refuse parameter names the notebook does not have, naming the ones it has (one sentence, nothing run)."""
    unknown = sorted(set(names) - set(defaults))
    if unknown:
        raise LabError("errors.unknown_parameters", unknown=", ".join(unknown), known=", ".join(defaults))


def parameters_source(language: str, defaults: dict[str, Any] = DEFAULTS) -> str:
    """The parameters cell's code: one plain literal a line, as papermill expects."""
    values = {**defaults, "language": language}
    return "\n".join(f"{name} = {_literal(value)}" for name, value in values.items())


def _literal(value: Any) -> str:
    """A Python literal papermill can rewrite: strings in double quotes (json.dumps escapes what needs it)."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)
