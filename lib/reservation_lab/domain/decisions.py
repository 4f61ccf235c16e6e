"""The lab's records of what a request got: each HTTP `Attempt`, and the `Decision` a requestId ended with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Attempt:
    """One HTTP attempt of a request: when it was sent and answered, and how."""

    sent: float
    answered: float
    status_code: int | None
    error: str | None = None


@dataclass
class Decision:
    """The final answer to one requestId, with every attempt it took."""

    request_id: str
    seats: int
    status_code: int | None = None
    body: dict[str, Any] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def status(self) -> str | None:
        return self.body.get("status")

    @property
    def reserved(self) -> int | None:
        return self.body.get("reserved")

    @property
    def decided(self) -> bool:
        return self.status_code in (201, 409)

    @property
    def replayed(self) -> bool:
        """The Worker answered with the decision it had already stored for this requestId."""
        return self.body.get("replayed") is True

    @property
    def retried_after_failure(self) -> bool:
        """An earlier attempt got no decision (transport error or 5xx): it may have committed before failing, so
        a replayed final answer is expected, not a broken invariant."""
        return any(a.status_code not in (201, 409) for a in self.attempts[:-1])
