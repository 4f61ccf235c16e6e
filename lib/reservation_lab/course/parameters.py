"""The notebook's parameters (papermill's one `parameters` cell): their defaults, once.

The builder writes the parameters cell from DEFAULTS (with the notebook's language); `./lab run`, `./lab local`
and run_course take their defaults from here too.
"""

from __future__ import annotations

from typing import Any

from reservation_lab.domain.model import BURST_SIZE

DEFAULTS: dict[str, Any] = {
    "cloud": False,
    "account_name": "LabEx Learning",
    "workshop": "launch-day",
    "burst_size": BURST_SIZE,
    "port": 0,
    "workdir": "",
    "language": "de",
}


def parameters_source(language: str) -> str:
    """The parameters cell's code: one plain literal a line, as papermill expects."""
    values = {**DEFAULTS, "language": language}
    return "\n".join(f"{name} = {value!r}".replace("'", '"') for name, value in values.items())
