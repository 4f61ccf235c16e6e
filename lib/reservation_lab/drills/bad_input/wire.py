"""The drill's values: a request exactly as it goes on the wire, the answer it got, the answer documented for it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Expected:
    """The documented answer to a request: status and error code (None for a success)."""

    status: int
    error: str | None


@dataclass(frozen=True)
class RawRequest:
    """One request exactly as it goes on the wire."""

    kind: str
    method: str
    path: str
    body: bytes | None = None
    chunked: bool = False
    content_type: str | None = "application/json"

    def describe(self, limit: int = 90) -> str:
        body = "" if self.body is None else f" body={self.body[:limit]!r}{'…' if len(self.body) > limit else ''}"
        body += f" ({len(self.body)} bytes{', chunked' if self.chunked else ''})" if self.body is not None else ""
        path = self.path if len(self.path) <= limit else self.path[:limit] + "…"
        return f"[{self.kind}] {self.method} {path}{body}"

    def shape(self) -> str:
        """A short class of the request, for the drop statistics: method, body size class, chunked or not."""
        body = self.body or b""
        size = "no body" if self.body is None else f"body {'over' if len(body) > 4096 else 'within'} 4 KiB"
        return f"{self.method} {size}{' chunked' if self.chunked else ''}"


@dataclass(frozen=True)
class Answer:
    """What came back: status, headers (lower-case names), body; or the transport error."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    error: str | None = None
