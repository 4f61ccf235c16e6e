"""`CloudflareDouble`: the account, its HTTP server and its running Workers, started and stopped together."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from reservation_lab.cloudflare_double.bundles import Bundles
from reservation_lab.cloudflare_double.server import API_PREFIX, serve
from reservation_lab.cloudflare_double.state import Account
from reservation_lab.runtime.http import WORKERS_DEV_VIA


class CloudflareDouble:
    """A loopback stand-in for one Cloudflare account; `environment()` points wrangler and the helpers at it."""

    def __init__(self, root: Path, account: Account | None = None) -> None:
        self.root = Path(root)
        self.account = account or Account()
        self.token = self.account.new_token()
        self.requests: list[tuple[str, str]] = []
        self.bundles = Bundles(self.root / "workers", self.account)
        self._server, self._thread = serve(self)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def environment(self, with_token: bool = True) -> dict[str, str]:
        """What wrangler and the helpers need to use the double instead of Cloudflare."""
        env = {"CLOUDFLARE_API_BASE_URL": self.origin + API_PREFIX, WORKERS_DEV_VIA: self.origin}
        if with_token:
            env["CLOUDFLARE_API_TOKEN"] = self.token
        return env

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.bundles.stop_all()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
