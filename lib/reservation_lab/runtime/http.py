"""The course's HTTP clients: one owned httpx.Client closed by close() or `with`, and how each client connects.

`client_options(url)` is the one place that decides: loopback never goes through a proxy (trust_env off); a remote
https URL (Cloudflare's API, a workers.dev Worker) honours HTTPS_PROXY/NO_PROXY as wrangler does; and while a
rehearsal runs (the `cloud` environment passed in sets WORKERS_DEV_VIA to the Cloudflare double's origin), every
`*.workers.dev` request is sent to that loopback origin with its Host kept: a visible mapping in this process, never
a change to the resolver.
"""

from __future__ import annotations

from typing import Any, Self
from urllib.parse import urlsplit

import httpx

from reservation_lab.runtime.cloud_env import REAL, CloudEnvironment

WORKERS_DEV_VIA = "RESERVATION_LAB_WORKERS_DEV_VIA"
LOOPBACK_HOSTS = ("localhost", "::1", "[::1]")


def is_loopback(url: str | httpx.URL | None) -> bool:
    host = (urlsplit(str(url)).hostname or "") if url else ""
    return host.startswith("127.") or host in LOOPBACK_HOSTS


def workers_dev_via(cloud: CloudEnvironment = REAL) -> str | None:
    """The loopback origin that serves *.workers.dev in a rehearsal's environment, or None (the real Cloudflare)."""
    via = cloud.get(WORKERS_DEV_VIA)
    return via if via is None or is_loopback(via) else None  # only ever a loopback origin


def _via(request: httpx.Request, origin: str) -> None:
    target = httpx.URL(origin)
    request.url = request.url.copy_with(scheme=target.scheme, host=target.host, port=target.port)


class _ViaLoopback(httpx.HTTPTransport):
    def __init__(self, origin: str) -> None:
        super().__init__()
        self.origin = origin

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        _via(request, self.origin)
        return super().handle_request(request)


class _AsyncViaLoopback(httpx.AsyncHTTPTransport):
    def __init__(self, origin: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.origin = origin

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        _via(request, self.origin)
        return await super().handle_async_request(request)


def client_options(url: str | None, asynchronous: bool = False, limits: httpx.Limits | None = None,
                   cloud: CloudEnvironment = REAL) -> dict[str, Any]:
    """trust_env and mounts for an httpx client that talks to `url` from `cloud` (see the module docstring)."""
    options: dict[str, Any] = {"trust_env": not is_loopback(url)}
    via = workers_dev_via(cloud)
    if via:
        transport = _AsyncViaLoopback(via, limits=limits or httpx.Limits()) if asynchronous else _ViaLoopback(via)
        options["mounts"] = {"all://*.workers.dev": transport}
    return options


class OwnsHttpClient:
    """Mixin for a client that keeps its httpx.Client in `self._http`."""

    _http: httpx.Client

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
