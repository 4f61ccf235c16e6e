"""The Worker's routes, spelled once (worker/openapi.yaml documents them; the Worker's front.js serves them)."""

from __future__ import annotations

HEALTH = "/health"


def reservations_path(workshop: str) -> str:
    """POST `{"requestId", "seats"}` here: 201 accepted, 409 rejected."""
    return f"/workshops/{workshop}/reservations"


def status_path(workshop: str) -> str:
    """GET the workshop's durable totals."""
    return f"/workshops/{workshop}/status"
