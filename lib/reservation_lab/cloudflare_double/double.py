"""`CloudflareDouble`: the account, its HTTP server and its running Workers, started and stopped together."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from reservation_lab.cloudflare_double.bundles import Bundles
from reservation_lab.cloudflare_double.oauth import OAuth, serve_oauth
from reservation_lab.cloudflare_double.scenarios import fresh_account
from reservation_lab.cloudflare_double.server import API_PREFIX, serve
from reservation_lab.cloudflare_double.state import Account, User
from reservation_lab.runtime.http import WORKERS_DEV_VIA


class CloudflareDouble:
    """A loopback stand-in for Cloudflare as one learner sees it (by default a fresh free account: see
    `scenarios`); `environment()` points wrangler and the helpers at it."""

    def __init__(self, root: Path, user: User | None = None) -> None:
        self.root = Path(root)
        self.user = user or fresh_account()
        self.token = self.user.new_token()
        self.requests: list[tuple[str, str]] = []
        self.bundles = Bundles(self.root / "workers", self.user)
        self._server, self._thread = serve(self)
        self.oauth = OAuth(self.user)
        self._oauth_server, self.ca_file = serve_oauth(self.oauth, self.root, self.bundles.forward)

    @property
    def account(self) -> Account:
        """The account the lab deploys to (the user's first)."""
        return self.user.account

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def auth_domain(self) -> str:
        return f"127.0.0.1:{self._oauth_server.server_address[1]}"

    def curl_options(self) -> list[str]:
        """What makes curl reach the Workers' https://….workers.dev URLs here: the double's CA and its TLS port."""
        return ["--cacert", str(self.ca_file), "--connect-to", f"::{self.auth_domain}"]

    def environment(self, with_token: bool = True) -> dict[str, str]:
        """What wrangler and the helpers need to use the double instead of Cloudflare.

        With `with_token` wrangler uses an API token (CLOUDFLARE_API_TOKEN); without it, `wrangler login` runs
        the device flow against the double, and its credentials live in a HOME of the double's own (a learner's
        real wrangler login is never read nor overwritten).
        """
        home = self.root / "home"
        env = {"CLOUDFLARE_API_BASE_URL": self.origin + API_PREFIX, WORKERS_DEV_VIA: self.origin,
               "WRANGLER_AUTH_DOMAIN": self.auth_domain,
               "WRANGLER_TOKEN_URL": f"https://{self.auth_domain}/oauth2/token",
               "WRANGLER_REVOKE_URL": f"https://{self.auth_domain}/oauth2/revoke",
               "NODE_EXTRA_CA_CERTS": str(self.ca_file), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        if with_token:
            env["CLOUDFLARE_API_TOKEN"] = self.token
        return env

    def close(self) -> None:
        for server in (self._server, self._oauth_server):
            server.shutdown()
            server.server_close()
        self.bundles.stop_all()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
