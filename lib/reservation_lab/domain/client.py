"""A small HTTP client for the reservation Worker's routes (loopback or a deployed URL)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from reservation_lab.domain.routes import HEALTH, reservations_path, status_path
from reservation_lab.errors import LabError
from reservation_lab.i18n import quoted
from reservation_lab.runtime.cloud_env import REAL, CloudEnvironment
from reservation_lab.runtime.http import OwnsHttpClient, client_options


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status code and JSON body."""

    status_code: int
    body: dict[str, Any]


class LabClient(OwnsHttpClient):
    """Synchronous client for /health, /workshops/<name>/status and /workshops/<name>/reservations."""

    def __init__(self, base_url: str, timeout: float = 10.0, transport: httpx.BaseTransport | None = None,
                 retries: int = 0, retry_delay: float = 1.0, cloud: CloudEnvironment = REAL) -> None:
        """`retries`: how often status() asks again after a transient failure (no answer, a page without JSON, a
        5xx), e.g. right after a deploy, when the edge may briefly answer for the old or no instance. `cloud`: the
        environment a workers.dev URL is reached from (a rehearsal's maps it to the Cloudflare double)."""
        self.base_url = base_url.rstrip("/")
        self.retries, self.retry_delay = retries, retry_delay
        options = client_options(self.base_url, cloud=cloud) if transport is None else {"trust_env": False}
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport, **options)

    def _reply(self, response: httpx.Response) -> Reply:
        """The answer as JSON; an HTML or empty page (an edge 5xx, a 404 before the route exists) is a LabError."""
        try:
            body = response.json()
        except ValueError:
            kind = (response.headers.get("content-type") or "text").split(";")[0]
            raise LabError("errors.not_json_answer", url=str(response.request.url), code=response.status_code,
                           kind=kind) from None
        return Reply(response.status_code, body if isinstance(body, dict) else {"body": body})

    def health(self) -> Reply:
        return self._reply(self._http.get(HEALTH))

    def status(self, workshop: str) -> dict[str, Any]:
        """The durable totals of a workshop; raises on anything but 200 (after `retries` transient failures)."""
        for attempt in range(self.retries + 1):
            try:
                reply = self._reply(self._http.get(status_path(workshop)))
            except (httpx.TransportError, LabError):
                if attempt == self.retries:
                    raise
            else:
                if reply.status_code < 500 or attempt == self.retries:
                    break
            time.sleep(self.retry_delay)
        if reply.status_code != 200:
            raise LabError("errors.status_failed", workshop=quoted(workshop), code=reply.status_code,
                           body=quoted(reply.body))
        return reply.body

    def reserve(self, workshop: str, request_id: str, seats: int = 1) -> Reply:
        """One reservation attempt; 201 accepted, 409 rejected, 4xx for bad input."""
        return self._reply(
            self._http.post(reservations_path(workshop), json={"requestId": request_id, "seats": seats})
        )

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """A raw request, for exploring bad input."""
        return self._http.request(method, path, **kwargs)
