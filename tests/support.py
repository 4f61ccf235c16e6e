"""Helpers shared by the tests (one place, imported as `from tests.support import ...`)."""

from __future__ import annotations

from typing import Any

from reservation_lab.domain.model import CAPACITY
from reservation_lab.runtime.processes import live_processes


def lab_processes() -> list[str]:
    """Command lines of wrangler/workerd/watchdog processes started from this checkout."""
    from reservation_lab.paths import REPO_ROOT

    node_modules = str(REPO_ROOT / "worker" / "node_modules")
    return [
        f"{info.pid}: {info.cmdline[:160]}"
        for info in live_processes()
        if (node_modules in info.cmdline and ("workerd" in info.cmdline or " dev " in info.cmdline))
        or "reservation_lab.runtime.watchdog" in info.cmdline
    ]


# Hand-made answers and statuses for the checker's histories (tests/domain, tests/i18n).


def status(reserved: int, accepted: int = 0, rejected: int = 0, capacity: int = CAPACITY,
           seats: int | None = None) -> dict[str, int]:
    return {"capacity": capacity, "reserved": reserved, "acceptedRequests": accepted, "rejectedRequests": rejected,
            "acceptedSeats": reserved if seats is None else seats}


def body(request_id: str, status_: str | None, reserved: int | None = None, seats: int = 1,
         replayed: bool = False, capacity: int = CAPACITY) -> dict[str, Any]:
    """A response body; status None makes an undecided response (no status)."""
    if status_ is None:
        return {"requestId": request_id, "seats": seats, "error": "transport"}
    return {"workshop": "lab", "requestId": request_id, "seats": seats, "status": status_, "capacity": capacity,
            "reserved": reserved, "replayed": replayed}


def acc(request_id: str, reserved: int, seats: int = 1, **kw: Any) -> dict[str, Any]:
    return body(request_id, "accepted", reserved, seats, **kw)


def rej(request_id: str, reserved: int, seats: int = 1, **kw: Any) -> dict[str, Any]:
    return body(request_id, "rejected", reserved, seats, **kw)
