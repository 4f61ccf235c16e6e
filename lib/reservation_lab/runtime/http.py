"""The base of the course's HTTP clients: one owned httpx.Client, closed by close() or a `with` block."""

from __future__ import annotations

from typing import Self

import httpx


class OwnsHttpClient:
    """Mixin for a client that keeps its httpx.Client in `self._http`."""

    _http: httpx.Client

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
