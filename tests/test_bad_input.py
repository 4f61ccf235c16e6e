"""Bad input on the real runtime: the documented 4xx JSON error, never a 5xx, and no state change."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass

import pytest

from reservation_lab.domain.client import LabClient
from reservation_lab.runtime.devserver import DevServer

R = "/workshops/launch-day/reservations"
S = "/workshops/launch-day/status"


@dataclass(frozen=True)
class Case:
    id: str
    method: str
    path: str
    body: bytes | None
    status: int
    error: str


def body(value: object) -> bytes:
    return json.dumps(value).encode()


CASES = [
    Case("not-json", "POST", R, b"seats=1", 400, "invalid_json"),
    Case("empty-body", "POST", R, b"", 400, "invalid_json"),
    Case("truncated-json", "POST", R, b'{"requestId":"request-x","seats":1', 400, "invalid_json"),
    Case("missing-request-id", "POST", R, body({"seats": 1}), 400, "invalid_reservation"),
    Case("missing-seats", "POST", R, body({"requestId": "request-x"}), 400, "invalid_reservation"),
    Case("seats-0", "POST", R, body({"requestId": "request-x", "seats": 0}), 400, "invalid_reservation"),
    Case("seats-5", "POST", R, body({"requestId": "request-x", "seats": 5}), 400, "invalid_reservation"),
    Case("seats-negative", "POST", R, body({"requestId": "request-x", "seats": -1}), 400, "invalid_reservation"),
    Case("seats-fraction", "POST", R, body({"requestId": "request-x", "seats": 1.5}), 400, "invalid_reservation"),
    Case("seats-string", "POST", R, body({"requestId": "request-x", "seats": "1"}), 400, "invalid_reservation"),
    Case("seats-null", "POST", R, body({"requestId": "request-x", "seats": None}), 400, "invalid_reservation"),
    Case("seats-true", "POST", R, body({"requestId": "request-x", "seats": True}), 400, "invalid_reservation"),
    Case("request-id-short", "POST", R, body({"requestId": "ab", "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-49", "POST", R, body({"requestId": "r" * 49, "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-upper", "POST", R, body({"requestId": "Request-1", "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-digit", "POST", R, body({"requestId": "1request", "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-number", "POST", R, body({"requestId": 12345, "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-space", "POST", R, body({"requestId": "request 1", "seats": 1}), 400, "invalid_reservation"),
    Case("body-array", "POST", R, body([{"requestId": "request-x", "seats": 1}]), 400, "invalid_reservation"),
    Case("body-null", "POST", R, b"null", 400, "invalid_reservation"),
    Case("body-number", "POST", R, b"7", 400, "invalid_reservation"),
    Case("workshop-upper", "GET", "/workshops/Launch-Day/status", None, 400, "invalid_workshop_name"),
    Case("workshop-digit", "GET", "/workshops/1day/status", None, 400, "invalid_workshop_name"),
    Case("workshop-33", "GET", f"/workshops/{'w' * 33}/status", None, 400, "invalid_workshop_name"),
    Case("workshop-encoded-slash", "GET", "/workshops/launch%2Fday/status", None, 400, "invalid_workshop_name"),
    Case("workshop-bad-escape", "GET", "/workshops/a%E0%A4%A/status", None, 400, "invalid_workshop_name"),
    Case("workshop-lone-percent", "POST", "/workshops/a%zz/reservations", body({"requestId": "request-x", "seats": 1}),
         400, "invalid_workshop_name"),
    Case("workshop-underscore", "GET", "/workshops/launch_day/status", None, 400, "invalid_workshop_name"),
    Case("get-reservations", "GET", R, None, 405, "method_not_allowed"),
    Case("post-status", "POST", S, body({"requestId": "request-x", "seats": 1}), 405, "method_not_allowed"),
    Case("delete-status", "DELETE", S, None, 405, "method_not_allowed"),
    Case("put-reservations", "PUT", R, body({"requestId": "request-x", "seats": 1}), 405, "method_not_allowed"),
    Case("post-health", "POST", "/health", b"{}", 405, "method_not_allowed"),
    Case("root", "GET", "/", None, 404, "not_found"),
    Case("unknown-action", "GET", "/workshops/launch-day/other", None, 404, "not_found"),
    Case("no-action", "GET", "/workshops/launch-day", None, 404, "not_found"),
    Case("trailing-slash", "GET", "/workshops/launch-day/status/", None, 404, "not_found"),
    Case("empty-name", "GET", "/workshops//status", None, 404, "not_found"),
    Case("oversized-body", "POST", R, body({"requestId": "request-x", "seats": 1, "pad": "x" * 5000}), 413,
         "payload_too_large"),
]


def send_raw(port: int, case: Case, chunked: bool = False) -> tuple[int, str, bytes]:
    """Send exactly the given method, path and body (no client-side normalisation of the path)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"content-type": "application/json"}
        if chunked:
            conn.request(case.method, case.path, body=iter([case.body or b""]), headers=headers,
                         encode_chunked=True)
        else:
            conn.request(case.method, case.path, body=case.body, headers=headers)
        response = conn.getresponse()
        return response.status, response.getheader("content-type") or "", response.read()
    finally:
        conn.close()


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 25
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.fixture
def seeded(client: LabClient) -> dict:
    """launch-day with two seats taken, so 'unchanged' is a non-trivial claim."""
    assert client.reserve("launch-day", "request-seed", 2).status_code == 201
    return client.status("launch-day")


def test_bad_inputs_get_documented_errors_and_change_nothing(
    dev_server: DevServer, client: LabClient, seeded: dict
) -> None:
    failures = []
    for case in CASES:
        status, content_type, raw = send_raw(dev_server.port, case)
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = raw[:80]
        if (status, payload) != (case.status, {"error": case.error}) or "application/json" not in content_type:
            failures.append(f"{case.id}: got {status} {payload!r} ({content_type})")
    assert failures == []
    assert client.status("launch-day") == seeded
    assert client.status("launch-day")["acceptedRequests"] == 1


def test_oversized_chunked_body_is_refused(dev_server: DevServer, client: LabClient, seeded: dict) -> None:
    oversized = next(case for case in CASES if case.id == "oversized-body")
    status, _, raw = send_raw(dev_server.port, oversized, chunked=True)
    assert (status, json.loads(raw)) == (413, {"error": "payload_too_large"})
    assert client.status("launch-day") == seeded


def test_a_valid_request_after_the_table_still_works(dev_server: DevServer, client: LabClient, seeded: dict) -> None:
    for case in CASES:
        send_raw(dev_server.port, case)
    reply = client.reserve("launch-day", "request-after-table", 2)
    assert (reply.status_code, reply.body["reserved"]) == (201, 4)
