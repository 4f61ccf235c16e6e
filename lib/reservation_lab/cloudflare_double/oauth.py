"""Cloudflare's OAuth endpoints as wrangler's device login and logout use them, over https on loopback.

wrangler builds the device endpoint as `https://<WRANGLER_AUTH_DOMAIN>/oauth2/device/auth` (cli.js:123212, no
override), so this server speaks TLS with a certificate from a local CA (`trustme`), which Node trusts through
NODE_EXTRA_CA_CERTS. Shapes: workers-auth's device flow as bundled (cli.js:124093 the device answer; 124184 the
token poll, `authorization_pending` until approved; 123723 refresh; 124538 logout's revoke with the refresh token;
123221 the `GET https://<domain>` Access probe). A device code is approved after `approve_after` seconds: the
rehearsal has no browser, and says so. The same listener also answers https requests for the Workers' workers.dev
hosts (for curl in the terminal blocks, pointed here with --connect-to and the CA).
"""

from __future__ import annotations

import json
import secrets
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import trustme

from reservation_lab.cloudflare_double.state import User

LIFETIME = 3600
SCOPES = "account:read user:read workers:write workers_scripts:write offline_access"


@dataclass
class DeviceGrant:
    device_code: str
    user_code: str
    issued: float


class OAuth:
    """Device grants, refresh tokens and their access tokens for one user.

    An access token expires after `lifetime` seconds on the server too; a refresh answers a new refresh token and
    the old one stops working (rotation, RFC 6749 §6 and the OAuth 2.0 Security BCP's refresh-token rotation, which
    wrangler follows by storing the refresh token of every answer: cli.js:123723-123790). Revoking a refresh token
    also revokes its access token (RFC 7009 §2.1: SHOULD; Cloudflare's own behaviour is not confirmed)."""

    def __init__(self, user: User, approve_after: float = 1.0, lifetime: float = LIFETIME) -> None:
        self.user = user
        self.approve_after = approve_after
        self.lifetime = lifetime
        self.grants: dict[str, DeviceGrant] = {}
        self.refresh: dict[str, str] = {}  # refresh token -> its current access token
        self.revoked_refresh: set[str] = set()
        self.refreshed = 0  # how many refresh grants were answered
        self.lock = threading.Lock()

    def device(self, origin: str) -> dict[str, Any]:
        grant = DeviceGrant(secrets.token_urlsafe(16), f"{secrets.token_hex(2)}-{secrets.token_hex(2)}".upper(),
                            time.monotonic())
        with self.lock:
            self.grants[grant.device_code] = grant
        return {"device_code": grant.device_code, "user_code": grant.user_code,
                "verification_uri": f"{origin}/oauth2/device",
                "verification_uri_complete": f"{origin}/oauth2/device?user_code={grant.user_code}",
                "expires_in": 300, "interval": 1}

    def token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        kind = form.get("grant_type", "")
        with self.lock, self.user.lock:
            if kind == "urn:ietf:params:oauth:grant-type:device_code":
                grant = self.grants.get(form.get("device_code", ""))
                if grant is None:
                    return 400, {"error": "expired_token"}
                if time.monotonic() - grant.issued < self.approve_after:
                    return 400, {"error": "authorization_pending"}
                del self.grants[grant.device_code]
                return 200, self._issue(secrets.token_urlsafe(24))
            if kind == "refresh_token":
                old = form.get("refresh_token", "")
                if old not in self.refresh or old in self.revoked_refresh:
                    return 400, {"error": "invalid_grant"}
                self.user.revoked.add(self.refresh[old])
                self.revoked_refresh.add(old)  # rotated: the old refresh token is spent
                self.refreshed += 1
                return 200, self._issue(secrets.token_urlsafe(24))
        return 400, {"error": "unsupported_grant_type"}

    def revoke(self, form: dict[str, str]) -> None:
        refresh = form.get("token", "")
        with self.lock, self.user.lock:
            if refresh in self.refresh:
                self.revoked_refresh.add(refresh)
                self.user.revoked.add(self.refresh[refresh])

    def _issue(self, refresh: str) -> dict[str, Any]:
        access = self.user.new_token(lifetime=self.lifetime)
        self.refresh[refresh] = access
        return {"access_token": access, "expires_in": round(self.lifetime), "refresh_token": refresh, "scope": SCOPES,
                "token_type": "bearer"}


class _Handler(BaseHTTPRequestHandler):
    server: _TLSServer
    protocol_version = "HTTP/1.1"

    def _forwarded(self) -> bool:
        """A request for a Worker's https://<script>.<subdomain>.workers.dev (curl in the terminal blocks)."""
        host = (self.headers.get("host") or "").split(":")[0].lower()
        if not host.endswith(".workers.dev"):
            return False
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        status, headers, content = self.server.forward(host, self.command, self.path, dict(self.headers.items()),
                                                       body)
        self._answer(status, content, headers.get("content-type", "application/json"))
        return True

    def do_GET(self) -> None:  # the Access probe and the verification page
        if self._forwarded():
            return
        self._answer(200, b"<!DOCTYPE html><title>Cloudflare double</title><p>Local rehearsal: approved "
                          b"automatically.</p>", "text/html")

    def do_POST(self) -> None:
        if self._forwarded():
            return
        length = int(self.headers.get("content-length") or 0)
        form = {k: v[-1] for k, v in parse_qs((self.rfile.read(length) if length else b"").decode()).items()}
        oauth = self.server.oauth
        if self.path == "/oauth2/device/auth":
            self._json(200, oauth.device(self.server.origin))
        elif self.path == "/oauth2/token":
            self._json(*oauth.token(form))
        elif self.path == "/oauth2/revoke":
            oauth.revoke(form)
            self._answer(200, b"", "text/plain")
        else:
            self._json(404, {"error": "not_found"})

    def _json(self, status: int, body: dict[str, Any]) -> None:
        self._answer(status, json.dumps(body).encode(), "application/json")

    def _answer(self, status: int, content: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, *args: Any) -> None:
        pass


class _TLSServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, oauth: OAuth, context: ssl.SSLContext, forward: Callable[..., Any]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.oauth = oauth
        self.forward = forward
        self.socket = context.wrap_socket(self.socket, server_side=True)
        self.origin = f"https://127.0.0.1:{self.server_address[1]}"


def serve_oauth(oauth: OAuth, folder: Path, forward: Callable[..., Any]) -> tuple[_TLSServer, Path]:
    """Serve `oauth` over TLS on a free loopback port; returns the server and the CA file for NODE_EXTRA_CA_CERTS
    (and curl's --cacert). Requests for `*.<subdomain>.workers.dev` go to `forward` (the Workers' servers)."""
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    subdomains = [a.subdomain for a in oauth.user.accounts if a.subdomain]
    hosts = ["127.0.0.1", "localhost", *(f"*.{subdomain}.workers.dev" for subdomain in subdomains)]
    ca.issue_cert(*hosts).configure_cert(context)
    folder.mkdir(parents=True, exist_ok=True)
    ca_file = folder / "double-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    server = _TLSServer(oauth, context, forward)
    threading.Thread(target=server.serve_forever, name="cloudflare-double-oauth", daemon=True).start()
    return server, ca_file
