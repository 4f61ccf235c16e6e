# Reservation client: reserves seats over a network that may drop, delay, duplicate or fail a request or its answer.
# The reference solution of the client exercise (worker/exercises.yml turns it into the learner's stub and back).
import secrets
import time

import httpx


def reserve(http: httpx.Client, workshop: str, seats: int) -> dict:
    """Reserve `seats` in `workshop`; return the Worker's decision (its JSON answer: 201 accepted, 409 rejected)."""
    request_id = f"r-{secrets.token_hex(8)}"
    wait = 0.02  # seconds before the first retry
    for _attempt in range(6):
        try:
            reply = http.post(f"/workshops/{workshop}/reservations",
                              json={"requestId": request_id, "seats": seats}, timeout=1.0)
            if reply.status_code in (201, 409):
                return reply.json()
        except httpx.TransportError:
            pass
        time.sleep(wait)
        wait *= 2
    raise TimeoutError(request_id)
