"""The Worker's routes, spelled once (worker/openapi.yaml documents them; the Worker's front.js serves them)."""

from __future__ import annotations

import itertools

HEALTH = "/health"


def reservations_path(workshop: str) -> str:
    """POST `{"requestId", "seats"}` here: 201 accepted, 409 rejected."""
    return f"/workshops/{workshop}/reservations"


def reservation_path(workshop: str, request_id: str) -> str:
    """DELETE one reservation here (the exercises' cancellation Worker): 200 cancelled, 404 unknown, 409 rejected."""
    return f"/workshops/{workshop}/reservations/{request_id}"


def status_path(workshop: str) -> str:
    """GET the workshop's durable totals."""
    return f"/workshops/{workshop}/status"


_FRESH = itertools.count(1)


def fresh_workshop(prefix: str) -> str:
    """`<prefix>-<n>`, a workshop this process has not used: a new object with new tables, so a re-run cell is
    a fresh experiment, not a replay of the last one."""
    return f"{prefix}-{next(_FRESH)}"
