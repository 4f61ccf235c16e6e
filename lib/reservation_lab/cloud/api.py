"""A small read-only client for the Cloudflare v4 API: script settings and Durable Object namespaces.

Errors never contain the token or the account ID.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from reservation_lab.errors import LabError
from reservation_lab.i18n import Message
from reservation_lab.runtime.cloud_env import REAL, CloudEnvironment
from reservation_lab.runtime.http import OwnsHttpClient, client_options
from reservation_lab.runtime.redact import redact

API_BASE = "https://api.cloudflare.com/client/v4"
NOT_FOUND_CODE = 10007  # workers.api.error.script_not_found
NOT_FOUND_CODES = (NOT_FOUND_CODE, 10090)  # … and workers.api.error.service_not_found
PER_PAGE = 100
MAX_PAGES = 50
AUTH_CODES = (6003, 6111, 9109, 10000, 10001)  # invalid/malformed headers or token, unauthorized, auth error
RATE_LIMITED_TRIES = 3
LONGEST_RETRY_AFTER = 30.0


class APIError(LabError):
    """A Cloudflare API call failed; `kind` is auth, network, server, not_found, api or bad_response."""

    def __init__(self, key: str | Message, kind: str = "api", status: int | None = None, codes: tuple[int, ...] = (),
                 **values: Any) -> None:
        super().__init__(key, **values)
        self.kind = kind
        self.status = status
        self.codes = codes


def is_not_found(error: BaseException) -> bool:
    """True if the API said the script does not exist (10007, or 10090 as wrangler also reads it: cli.js:150960)."""
    return isinstance(error, APIError) and any(code in NOT_FOUND_CODES for code in error.codes)


class CloudflareAPI(OwnsHttpClient):
    """GET-only access to one account's Workers scripts and Durable Object namespaces."""

    def __init__(
        self,
        token: str,
        account_id: str,
        transport: httpx.BaseTransport | None = None,
        base_url: str | None = None,
        timeout: float = 20.0,
        cloud: CloudEnvironment = REAL,
    ) -> None:
        self._secrets = [s for s in (token, account_id) if s]
        self._account = account_id
        base_url = (base_url or api_base(cloud)).rstrip("/")
        self._http = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
            transport=transport,
            **(client_options(base_url, cloud=cloud) if transport is None else {"trust_env": False}),
        )

    def __repr__(self) -> str:
        return "CloudflareAPI(<hidden credentials>)"

    def script_settings(self, script: str) -> dict[str, Any]:
        """The settings (bindings, compatibility date, …) of Worker `script`."""
        body = self._get(f"/accounts/{self._account}/workers/scripts/{script}/settings",
                         what=Message("cloud.what_settings"))
        result = body.get("result")
        if not isinstance(result, dict):
            raise APIError("cloud.settings_no_result", kind="bad_response")
        return result

    def durable_object_namespaces(self) -> list[dict[str, Any]]:
        """Every Durable Object namespace of the account, following the pages."""
        found: list[dict[str, Any]] = []
        for page in range(1, MAX_PAGES + 1):
            body = self._get(
                f"/accounts/{self._account}/workers/durable_objects/namespaces",
                what=Message("cloud.what_namespaces"),
                params={"page": page, "per_page": PER_PAGE},
            )
            result = body.get("result") or []
            if not isinstance(result, list):
                raise APIError("cloud.namespaces_no_list", kind="bad_response")
            found.extend(item for item in result if isinstance(item, dict))
            if _last_page(body.get("result_info"), page, len(result)):
                return found
        raise APIError("cloud.namespaces_endless", kind="bad_response", pages=MAX_PAGES)

    def _get(self, path: str, what: Message, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """GET, waiting out a 429 as its Retry-After says (at most RATE_LIMITED_TRIES tries)."""
        for attempt in range(1, RATE_LIMITED_TRIES + 1):
            try:
                response = self._http.get(path, params=params)
            except httpx.TransportError as exc:
                raise APIError("cloud.api_unreachable", kind="network", what=what, error=type(exc).__name__,
                               detail=self._scrub(str(exc))) from None
            if response.status_code != 429 or attempt == RATE_LIMITED_TRIES:
                return self._envelope(response, what)
            time.sleep(retry_after(response))
        raise AssertionError("unreachable")

    def _envelope(self, response: httpx.Response, what: Message) -> dict[str, Any]:
        status = response.status_code
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            kind = "server" if status >= 500 else "bad_response"
            raise APIError("cloud.api_not_json", kind=kind, status=status, what=what, code=status)
        errors = [e for e in body.get("errors") or [] if isinstance(e, dict)]
        codes = tuple(e["code"] for e in errors if isinstance(e.get("code"), int))
        if 200 <= status < 300 and body.get("success") is True:
            return body
        listed = "; ".join(f"code {e.get('code')}: {e.get('message')}" for e in errors)
        detail = self._scrub(listed) if listed else Message("cloud.no_details")
        raise APIError(_explain(status, codes, what, detail), kind=_kind(status, codes), status=status, codes=codes)

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "<hidden>")
        return redact(text)


def _last_page(info: Any, page: int, count: int) -> bool:
    """Whether `page` is the last page, from result_info (total_pages, else total_count) or the page size."""
    if not isinstance(info, dict):
        return True
    if isinstance(info.get("total_pages"), int):
        return page >= info["total_pages"]
    per_page = info.get("per_page") or PER_PAGE
    if isinstance(info.get("total_count"), int):
        return page * per_page >= info["total_count"]
    return count < per_page


def retry_after(response: httpx.Response) -> float:
    """Seconds to wait from a 429's Retry-After (seconds form), 1 s if absent, never more than 30 s."""
    try:
        return min(LONGEST_RETRY_AFTER, max(0.0, float(response.headers.get("retry-after", "1"))))
    except ValueError:
        return 1.0


def _is_auth(status: int, codes: tuple[int, ...]) -> bool:
    return status in (401, 403) or any(code in AUTH_CODES for code in codes)


def _kind(status: int, codes: tuple[int, ...]) -> str:
    if any(code in NOT_FOUND_CODES for code in codes):
        return "not_found"
    if _is_auth(status, codes):
        return "auth"
    return "server" if status >= 500 else "api"


def _explain(status: int, codes: tuple[int, ...], what: Message, detail: str | Message) -> Message:
    key = ("cloud.api_refused" if _is_auth(status, codes) else "cloud.api_server" if status >= 500
           else "cloud.api_rejected")
    return Message(key, {"what": what, "code": status, "detail": detail})


def api_base(cloud: CloudEnvironment = REAL) -> str:
    """Cloudflare's v4 API, or CLOUDFLARE_API_BASE_URL as wrangler reads it (the double, in a rehearsal)."""
    return cloud.get("CLOUDFLARE_API_BASE_URL") or API_BASE


def token_from_env(cloud: CloudEnvironment = REAL) -> str | None:
    """CLOUDFLARE_API_TOKEN if it is set and not empty (as cloud commands see it: never the kernel's in a rehearsal)."""
    return cloud.get("CLOUDFLARE_API_TOKEN")


def parse_auth_token(stdout: str) -> str:
    """The bearer token from `wrangler auth token --json` output ({"type": ..., "token": ...})."""
    data = first_json_object(stdout)
    if data is None:
        raise LabError("cloud.token_no_json")
    if data.get("type") == "api_key":
        raise LabError("cloud.token_api_key")
    token = data.get("token")
    if not isinstance(token, str) or not token:
        raise LabError("cloud.token_missing")
    return token


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in text (wrangler may print blank lines or notes around it), or None."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None
