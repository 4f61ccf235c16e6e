"""The double's HTTP side on 127.0.0.1: the v4 API under /client/v4, and each Worker's workers.dev host.

One ThreadingHTTPServer in a daemon thread. A request whose Host is `<script>.<subdomain>.workers.dev` is passed
to the Worker's own `wrangler dev` (see `bundles`); every other request goes to `api.dispatch`.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from reservation_lab.cloudflare_double.api import Request, dispatch
from reservation_lab.cloudflare_double.bundles import BAD_GATEWAY_PAGE
from reservation_lab.cloudflare_double.envelope import error

API_PREFIX = "/client/v4"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def _serve(self) -> None:
        """One request; whatever goes wrong inside is an answer (a 500 envelope, or a 502 page for a Worker's host),
        never a dropped connection: Cloudflare answers, and wrangler would report a network error instead."""
        try:
            self._dispatch()
        except Exception as exc:  # noqa: BLE001 - see the docstring
            host = (self.headers.get("host") or "").split(":")[0].lower()
            if host.endswith(".workers.dev"):
                self.send_response(502)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(BAD_GATEWAY_PAGE)))
                self.end_headers()
                self.wfile.write(BAD_GATEWAY_PAGE)
            else:  # code 10013: Cloudflare's "An unknown error has occurred" (tests/cloud/test_verify.py's 500)
                self._answer(*error(500, 10013, f"An unknown error has occurred ({type(exc).__name__})"))

    def _dispatch(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        host = (self.headers.get("host") or "").split(":")[0].lower()
        if host.endswith(".workers.dev"):
            self._forward(host, body)
            return
        parts = urlsplit(self.path)
        if not parts.path.startswith(API_PREFIX):
            self._answer(*error(404, 7000, "No route for that URI"))
            return
        request = Request(method=self.command, path=parts.path[len(API_PREFIX):],
                          query={k: v[-1] for k, v in parse_qs(parts.query).items()},
                          headers={k.lower(): v for k, v in self.headers.items()}, body=body)
        self.server.double.requests.append((request.method, request.path))
        status, payload, headers = dispatch(self.server.double, request)
        self._answer(status, payload, headers)

    def _forward(self, host: str, body: bytes) -> None:
        status, headers, content = self.server.double.bundles.forward(host, self.command, self.path,
                                                                      dict(self.headers.items()), body)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def _answer(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", (headers or {}).pop("content-type", "application/json"))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, *args: Any) -> None:  # requests are kept in `double.requests`, not printed
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, double: Any) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.double = double


def serve(double: Any) -> tuple[_Server, threading.Thread]:
    """Start serving `double` on a free loopback port; returns the server and its thread."""
    server = _Server(double)
    thread = threading.Thread(target=server.serve_forever, name="cloudflare-double", daemon=True)
    thread.start()
    return server, thread

