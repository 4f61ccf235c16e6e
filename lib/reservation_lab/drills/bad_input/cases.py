"""The table of hand-written malformed requests and their documented answers: the one source of these cases, for
the drill and for `tests/test_bad_input.py`. They are written against the seeded workshop `SEED_WORKSHOP`."""

from __future__ import annotations

import json
from dataclasses import dataclass

from reservation_lab.drills.bad_input.wire import RawRequest

SEED_WORKSHOP = "launch-day"
RESERVATIONS = f"/workshops/{SEED_WORKSHOP}/reservations"
STATUS = f"/workshops/{SEED_WORKSHOP}/status"


@dataclass(frozen=True)
class Case:
    """A hand-written malformed request and its documented answer."""

    id: str
    method: str
    path: str
    body: bytes | None
    status: int
    error: str
    chunked: bool = False

    def request(self) -> RawRequest:
        return RawRequest(f"table:{self.id}", self.method, self.path, self.body, self.chunked)


def json_body(value: object) -> bytes:
    """`value` as a JSON request body."""
    return json.dumps(value).encode()


_R, _S = RESERVATIONS, STATUS
_X = {"requestId": "request-x", "seats": 1}
_json = json_body

CASES: tuple[Case, ...] = (
    Case("not-json", "POST", _R, b"seats=1", 400, "invalid_json"),
    Case("empty-body", "POST", _R, b"", 400, "invalid_json"),
    Case("truncated-json", "POST", _R, b'{"requestId":"request-x","seats":1', 400, "invalid_json"),
    Case("missing-request-id", "POST", _R, _json({"seats": 1}), 400, "invalid_reservation"),
    Case("missing-seats", "POST", _R, _json({"requestId": "request-x"}), 400, "invalid_reservation"),
    Case("seats-0", "POST", _R, _json({**_X, "seats": 0}), 400, "invalid_reservation"),
    Case("seats-5", "POST", _R, _json({**_X, "seats": 5}), 400, "invalid_reservation"),
    Case("seats-negative", "POST", _R, _json({**_X, "seats": -1}), 400, "invalid_reservation"),
    Case("seats-fraction", "POST", _R, _json({**_X, "seats": 1.5}), 400, "invalid_reservation"),
    Case("seats-string", "POST", _R, _json({**_X, "seats": "1"}), 400, "invalid_reservation"),
    Case("seats-null", "POST", _R, _json({**_X, "seats": None}), 400, "invalid_reservation"),
    Case("seats-true", "POST", _R, _json({**_X, "seats": True}), 400, "invalid_reservation"),
    Case("request-id-short", "POST", _R, _json({"requestId": "ab", "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-49", "POST", _R, _json({"requestId": "r" * 49, "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-upper", "POST", _R, _json({"requestId": "Request-1", "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-digit", "POST", _R, _json({"requestId": "1request", "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-number", "POST", _R, _json({"requestId": 12345, "seats": 1}), 400, "invalid_reservation"),
    Case("request-id-space", "POST", _R, _json({"requestId": "request 1", "seats": 1}), 400, "invalid_reservation"),
    Case("body-array", "POST", _R, _json([_X]), 400, "invalid_reservation"),
    Case("body-null", "POST", _R, b"null", 400, "invalid_reservation"),
    Case("body-number", "POST", _R, b"7", 400, "invalid_reservation"),
    Case("workshop-upper", "GET", "/workshops/Launch-Day/status", None, 400, "invalid_workshop_name"),
    Case("workshop-digit", "GET", "/workshops/1day/status", None, 400, "invalid_workshop_name"),
    Case("workshop-33", "GET", f"/workshops/{'w' * 33}/status", None, 400, "invalid_workshop_name"),
    Case("workshop-encoded-slash", "GET", "/workshops/launch%2Fday/status", None, 400, "invalid_workshop_name"),
    Case("workshop-bad-escape", "GET", "/workshops/a%E0%A4%A/status", None, 400, "invalid_workshop_name"),
    Case("workshop-lone-percent", "POST", "/workshops/a%zz/reservations", _json(_X), 400, "invalid_workshop_name"),
    Case("workshop-underscore", "GET", "/workshops/launch_day/status", None, 400, "invalid_workshop_name"),
    Case("get-reservations", "GET", _R, None, 405, "method_not_allowed"),
    Case("post-status", "POST", _S, _json(_X), 405, "method_not_allowed"),
    Case("delete-status", "DELETE", _S, None, 405, "method_not_allowed"),
    Case("put-reservations", "PUT", _R, _json(_X), 405, "method_not_allowed"),
    Case("post-health", "POST", "/health", b"{}", 405, "method_not_allowed"),
    Case("root", "GET", "/", None, 404, "not_found"),
    Case("unknown-action", "GET", f"/workshops/{SEED_WORKSHOP}/other", None, 404, "not_found"),
    Case("no-action", "GET", f"/workshops/{SEED_WORKSHOP}", None, 404, "not_found"),
    Case("trailing-slash", "GET", f"{_S}/", None, 404, "not_found"),
    Case("empty-name", "GET", "/workshops//status", None, 404, "not_found"),
    Case("oversized-body", "POST", _R, _json({**_X, "pad": "x" * 5000}), 413, "payload_too_large"),
    Case("oversized-chunked", "POST", _R, _json({**_X, "pad": "x" * 5000}), 413, "payload_too_large", chunked=True),
    Case("request-id-newline", "POST", _R, _json({"requestId": "request-x\n", "seats": 1}), 400,
         "invalid_reservation"),
    Case("nan-seats", "POST", _R, b'{"requestId":"request-x","seats":NaN}', 400, "invalid_json"),
    Case("dot-segment-health", "POST", "/workshops/../health", b"{}", 405, "method_not_allowed"),
    Case("head-status-bad-name", "HEAD", "/workshops/A/status", None, 400, "invalid_workshop_name"),
)
