"""The Cloudflare API client at the HTTP transport: v4 envelopes, pages and every failure kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from reservation_lab.cloud.api import (
    APIError,
    CloudflareAPI,
    first_json_object,
    is_not_found,
    parse_auth_token,
)
from reservation_lab.errors import LabError
from tests.support import raises_key

TOKEN = "cf-test-token-Zq9x7Yw6Vu5Ts4Rr3Qp2On1Ml0Kk"
ACCOUNT = "0123456789abcdef0123456789abcdef"
SCRIPT = "labex-c10-o03-0123456789ab"
SETTINGS_PATH = f"/client/v4/accounts/{ACCOUNT}/workers/scripts/{SCRIPT}/settings"
NAMESPACES_PATH = f"/client/v4/accounts/{ACCOUNT}/workers/durable_objects/namespaces"


def envelope(result: Any = None, errors: list[dict] | None = None, result_info: dict | None = None) -> dict:
    """A Cloudflare v4 response body."""
    body: dict[str, Any] = {"success": not errors, "errors": errors or [], "messages": [], "result": result}
    if result_info is not None:
        body["result_info"] = result_info
    return body


def api(handler: Callable[[httpx.Request], httpx.Response]) -> CloudflareAPI:
    return CloudflareAPI(TOKEN, ACCOUNT, transport=httpx.MockTransport(handler))


def failing(status: int, body: Any = None, text: str | None = None) -> CloudflareAPI:
    def handler(request: httpx.Request) -> httpx.Response:
        if text is not None:
            return httpx.Response(status, text=text)
        return httpx.Response(status, json=body)

    return api(handler)


def namespace(script: str, cls: str = "WorkshopReservations", sqlite: bool = True) -> dict:
    return {"id": "f" * 32, "name": f"{script}_{cls}", "script": script, "class": cls, "use_sqlite": sqlite}


def test_script_settings_success_sends_bearer_token_to_the_account_path() -> None:
    seen: list[httpx.Request] = []
    binding = {"type": "durable_object_namespace", "name": "WORKSHOPS", "class_name": "WorkshopReservations",
               "namespace_id": "e" * 32}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=envelope({"bindings": [binding], "compatibility_date": "2026-09-18"}))

    with api(handler) as client:
        settings = client.script_settings(SCRIPT)
    assert settings["bindings"] == [binding]
    assert seen[0].method == "GET"
    assert seen[0].url.host == "api.cloudflare.com"
    assert seen[0].url.path == SETTINGS_PATH
    assert seen[0].headers["authorization"] == f"Bearer {TOKEN}"


def test_namespaces_follow_total_pages_to_page_two() -> None:
    pages = {1: [namespace("someone-else")], 2: [namespace(SCRIPT)]}
    requested: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == NAMESPACES_PATH
        params = dict(request.url.params)
        requested.append(params)
        page = int(params["page"])
        info = {"page": page, "per_page": 1, "count": 1, "total_count": 2, "total_pages": 2}
        return httpx.Response(200, json=envelope(pages[page], result_info=info))

    found = api(handler).durable_object_namespaces()
    assert [n["script"] for n in found] == ["someone-else", SCRIPT]
    assert [r["page"] for r in requested] == ["1", "2"]
    assert all(r["per_page"] == "100" for r in requested)


def test_namespaces_without_total_pages_use_total_count() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        result = [namespace(f"w{page}-{i}") for i in range(100 if page == 1 else 3)]
        return httpx.Response(200, json=envelope(result, result_info={"page": page, "per_page": 100,
                                                                     "count": len(result), "total_count": 103}))

    assert len(api(handler).durable_object_namespaces()) == 103


def test_namespaces_single_page_without_result_info() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, json=envelope([namespace(SCRIPT)]))

    assert api(handler).durable_object_namespaces()[0]["use_sqlite"] is True
    assert len(calls) == 1


def test_script_not_found_10007() -> None:
    body = envelope(errors=[{"code": 10007, "message": "workers.api.error.script_not_found"}])
    with pytest.raises(APIError) as caught:
        failing(404, body).script_settings(SCRIPT)
    error = caught.value
    assert is_not_found(error)
    assert (error.status, error.codes, error.kind) == (404, (10007,), "not_found")
    assert "10007" in str(error)


def test_not_found_helper_is_strict() -> None:
    assert is_not_found(APIError("cloud.no_details", status=404, codes=(10090,)))  # as wrangler reads it
    assert not is_not_found(APIError("cloud.no_details", status=404, codes=(7003,)))
    assert not is_not_found(RuntimeError("10007"))
    assert is_not_found(APIError("cloud.no_details", status=200, codes=(10007,)))


@pytest.mark.parametrize("status, code, message", [
    (401, 10001, "Unable to authenticate request"),
    (403, 10000, "Authentication error"),
])
def test_auth_failures_say_to_log_in_again(status: int, code: int, message: str) -> None:
    with pytest.raises(APIError) as caught:
        failing(status, envelope(errors=[{"code": code, "message": message}])).script_settings(SCRIPT)
    assert caught.value.kind == "auth"
    assert caught.value.status == status
    text = str(caught.value)
    assert "refused the credentials" in text and "login" in text and message in text


def test_network_error_is_a_clear_network_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution", request=request)

    with pytest.raises(APIError) as caught:
        api(handler).durable_object_namespaces()
    assert caught.value.kind == "network"
    assert caught.value.status is None
    assert "Could not reach the Cloudflare API" in str(caught.value)
    assert "ConnectError" in str(caught.value)


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors(status: int) -> None:
    with pytest.raises(APIError) as caught:
        failing(status, envelope(errors=[{"code": 10013, "message": "An unknown error has occurred"}])).script_settings(
            SCRIPT)
    assert caught.value.kind == "server"
    assert "server error" in str(caught.value) and f"HTTP {status}" in str(caught.value)


def test_server_error_with_an_html_page() -> None:
    with pytest.raises(APIError) as caught:
        failing(502, text="<html><body>502 Bad Gateway</body></html>").durable_object_namespaces()
    assert caught.value.kind == "server"
    assert "not a JSON object" in str(caught.value)


def test_non_json_success_body() -> None:
    with pytest.raises(APIError) as caught:
        failing(200, text="OK").script_settings(SCRIPT)
    assert caught.value.kind == "bad_response"
    assert "HTTP 200" in str(caught.value)


def test_unsuccessful_envelope_with_200_is_an_error() -> None:
    with pytest.raises(APIError) as caught:
        failing(200, envelope(errors=[{"code": 10023, "message": "odd"}])).script_settings(SCRIPT)
    assert caught.value.codes == (10023,)


def test_result_of_the_wrong_shape() -> None:
    with raises_key("cloud.settings_no_result", APIError):
        failing(200, envelope([1, 2])).script_settings(SCRIPT)
    with raises_key("cloud.namespaces_no_list", APIError):
        failing(200, envelope({"a": 1})).durable_object_namespaces()


def leaky_clients() -> list[Callable[[], Any]]:
    """Failures whose raw material mentions the token or the account ID."""
    leak = f"account {ACCOUNT} with token {TOKEN} is not allowed"

    def connect(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"failed for {request.url}", request=request)

    return [
        failing(403, envelope(errors=[{"code": 10000, "message": leak}])).script_settings,
        failing(404, envelope(errors=[{"code": 10007, "message": leak}])).script_settings,
        failing(500, envelope(errors=[{"code": 1, "message": leak}])).script_settings,
        failing(400, envelope(errors=[{"code": 2, "message": leak}])).script_settings,
        api(connect).script_settings,
    ]


@pytest.mark.parametrize("index", range(5))
def test_token_and_account_never_appear_in_errors(index: int) -> None:
    call = leaky_clients()[index]
    with pytest.raises(APIError) as caught:
        call(SCRIPT)
    text = str(caught.value) + repr(caught.value)
    assert TOKEN not in text and ACCOUNT not in text
    assert TOKEN not in repr(call.__self__) and ACCOUNT not in repr(call.__self__)


def test_auth_token_shapes() -> None:
    assert parse_auth_token('{\n  "type": "oauth",\n  "token": "abc.def"\n}\n') == "abc.def"
    assert parse_auth_token('note\n{"type": "api_token", "token": "t0k"}') == "t0k"
    with raises_key("cloud.token_api_key", LabError):
        parse_auth_token('{"type": "api_key", "key": "k", "email": "a@b.example"}')
    with raises_key("cloud.token_no_json", LabError):
        parse_auth_token("")
    with raises_key("cloud.token_missing", LabError):
        parse_auth_token('{"type": "oauth"}')


def test_first_json_object_skips_noise() -> None:
    assert first_json_object('x {bad} {"a": [1]} {"b": 2}') == {"a": [1]}
    assert first_json_object("[1, 2]") is None
