"""Cloud steps 5–7 (deploy, verify, cleanup, logout): not implemented yet.

Every function raises, so a notebook run with cloud = True fails loudly instead of pretending.
"""

from __future__ import annotations

from typing import Any

from reservation_lab.errors import LabError

_NOT_YET = "The cloud steps are not implemented in this version of the course; run with cloud = False."


def _missing(*_: Any, **__: Any) -> Any:
    raise LabError(_NOT_YET)


login = logout = whoami = deploy = wait_until_ready = verify = delete_worker = _missing
