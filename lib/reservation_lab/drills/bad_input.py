"""Bad-input drill: malformed requests, sent raw to a real `wrangler dev`, checked against `worker/openapi.yaml`.

What is sent (each on its own connection with `http.client`, so nothing normalises the path or the body):

* the table of hand-written malformed requests (the same cases as `tests/test_bad_input.py`, kept here because
  the library must not depend on the tests), plus an oversized chunked body;
* `examples` malformed requests generated with hypothesis from the schemas in `openapi.yaml`: request bodies
  that violate `ReservationRequest` (wrong types, seats out of range or fractional, requestIds that break the
  pattern, too short or too long, huge strings, missing fields, extra nesting, non-objects, broken JSON, random
  bytes, bodies over the size limit, chunked or not), workshop names that break the name pattern (also as
  percent escapes, bad escapes, encoded slashes and invalid UTF-8), methods without an operation, and random
  paths (with dot segments and query strings);
* a few probes with methods the runtime's HTTP parser does not know (reported, not judged: they never reach
  the Worker, workerd answers them itself).

What must hold:

* no answer from the Worker is a 5xx;
* each answer is the one `openapi.yaml` documents for it: the drill reads the routes, the check order, the
  name and reservation schemas and the size limit from the file and predicts status and error code; the answer
  must be exactly that status, `Content-Type: application/json`, a body valid against the documented response
  schema (exactly `{"error": <code>}`) and, for a 405, the documented `Allow` header;
* the valid answers in the window (health, status, the replays of an accepted and a rejected reservation)
  conform to their documented schemas;
* durable state is unchanged: the seeded workshop's status is equal before and after, and so is a digest of
  the Durable Object storage: every SQLite file under `<state>/v3/do/` (each workshop's object and the
  namespace's metadata) is copied with its WAL, opened with Python's sqlite3, and every table's schema and rows
  are hashed. The set of files must be equal too (no bad request may create an object). The raw bytes of the
  files are compared as well and reported, but not judged: workerd may checkpoint a WAL at any time.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import http.client
import json
import re
import secrets
import select
import shutil
import socket
import sqlite3
import string
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from reservation_lab.domain.client import LabClient
from reservation_lab.domain.config import RunFolder, create_run_folder, write_wrangler_config
from reservation_lab.drills import bounded_int
from reservation_lab.errors import LabError
from reservation_lab.paths import WORKER_DIR
from reservation_lab.runtime.devserver import DevServer, start_dev_server
from reservation_lab.runtime.ports import LOOPBACK

OPENAPI = WORKER_DIR / "openapi.yaml"
MAX_EXAMPLES = 5000
REQUEST_TIMEOUT = 10.0
PROXY_RETRIES = 3  # a request wrangler dev's proxy dropped is sent again at most this often
MAX_SILENT = 5  # this many requests in a row without any answer end the drill (the server is gone or hung)
SEED_WORKSHOP = "launch-day"
SEED_ACCEPTED = ("request-seed", 2)  # accepted: 2 of 4 seats
SEED_REJECTED = ("request-seed-big", 3)  # rejected: 3 more do not fit
OPERATIONS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")  # OpenAPI's method keys
# Methods workerd's HTTP parser recognises (so they reach the Worker); others are answered by the runtime.
WORKER_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PURGE", "COPY", "LOCK",
                  "MKCOL", "MOVE", "PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "ACL", "REPORT", "MKACTIVITY",
                  "CHECKOUT", "MERGE", "MSEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE", "QUERY", "BAN")
RUNTIME_PROBES = ("FOO", "get", "M-SEARCH", "BIND", "LINK", "CONNECT")
PCHAR = string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@"  # RFC 3986 path characters, unescaped
BAD_ESCAPES = ("%", "%z", "%zz", "%4", "%G1", "%%", "%2", "%E0%A4%A", "%FF", "%C3", "%ED%A0%80", "%C0%AF",
               "%2F", "%2f", "%20", "%00", "%C3%A9", "%41", "%5F", "%2e", "%2E", "%F0%9F%98")
DOT_SEGMENTS = {".": 1, "%2e": 1, "..": 2, ".%2e": 2, "%2e.": 2, "%2e%2e": 2}


# --- the contract: openapi.yaml, read once ----------------------------------------------------------------------


def load_openapi(path: Path = OPENAPI) -> dict[str, Any]:
    """The OpenAPI document as a dict (YAML)."""
    import yaml

    try:
        return yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise LabError(f"could not read the API description {path}: {exc}") from exc


def _deref(node: Any, root: dict[str, Any]) -> Any:
    """A copy of `node` with every local `$ref` replaced by what it points to (the document has no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node:
            target: Any = root
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return _deref(target, root)
        return {key: _deref(value, root) for key, value in node.items()}
    if isinstance(node, list):
        return [_deref(item, root) for item in node]
    return node


def python_pattern(pattern: str) -> str:
    """An ECMA-262 pattern as Python means it: a final `$` becomes `\\Z` (JS `$` never matches before a newline)."""
    return pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith(r"\$") else pattern


def _python_patterns(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: python_pattern(v) if k == "pattern" and isinstance(v, str) else _python_patterns(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [_python_patterns(item) for item in node]
    return node


def length_bounds(pattern: str) -> tuple[int, int]:
    """(min, max) length of `^[class][class]{m,n}$`-shaped patterns: (m + 1, n + 1)."""
    match = re.fullmatch(r"\^\[[^\]]+\]\[[^\]]+\]\{(\d+),(\d+)\}\$", pattern)
    if not match:
        raise LabError(f"the pattern {pattern!r} does not have the expected shape ^[..][..]{{m,n}}$.")
    return int(match[1]) + 1, int(match[2]) + 1


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


class Contract:
    """What openapi.yaml says: routes, check order, schemas; predicts and checks answers."""

    def __init__(self, document: dict[str, Any]) -> None:
        from jsonschema import Draft202012Validator

        self.document = document
        resolved = _python_patterns(_deref(document, document))
        self.routes: list[tuple[str, re.Pattern[str], dict[str, Any]]] = []
        for template, item in resolved["paths"].items():
            regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
            self.routes.append((template, re.compile(regex), item))
        self.unmatched = resolved["x-unmatched-path"]
        schemas = document["components"]["schemas"]
        self.name_pattern = schemas["WorkshopName"]["pattern"]
        self.request_id_pattern = schemas["RequestId"]["pattern"]
        self.seats_range = (schemas["Seats"]["minimum"], schemas["Seats"]["maximum"])
        reserve = resolved["paths"]["/workshops/{name}/reservations"]["post"]["requestBody"]
        self.max_body_bytes: int = reserve["x-max-bytes"]
        self._validator = Draft202012Validator
        self._validators: dict[int, tuple[dict[str, Any], Any]] = {}
        self._param_validators = {
            (template, param["name"]): Draft202012Validator(param["schema"])
            for template, _, item in self.routes for param in item.get("parameters", [])
        }

    def validator(self, schema: dict[str, Any]) -> Any:
        """A JSON Schema 2020-12 validator for a schema of the resolved document (cached per schema)."""
        cached = self._validators.get(id(schema))
        if cached is None or cached[0] is not schema:
            cached = self._validators[id(schema)] = (schema, self._validator(schema))
        return cached[1]

    def route(self, pathname: str) -> tuple[str | None, dict[str, Any], dict[str, str]]:
        """(template, path item, path parameters) of a normalised pathname; template None when no route matches."""
        for template, regex, item in self.routes:
            match = regex.fullmatch(pathname)
            if match:
                return template, item, match.groupdict()
        return None, self.unmatched, {}

    def operation(self, item: dict[str, Any], method: str) -> dict[str, Any] | None:
        """The operation for `method` on a path item, or None (then `x-other-methods` answers)."""
        key = method.lower()
        return item.get(key) if method.isupper() and key in OPERATIONS else None

    def expect(self, request: RawRequest) -> Expected | None:
        """The documented answer to `request`, following the check order; None if the request is valid."""
        pathname = normalise_path(request.path)
        template, item, params = self.route(pathname)
        if template is None:
            return Expected(404, "not_found")
        for name, raw in params.items():
            decoded = decode_uri_component(raw)
            if decoded is None or not self._param_validators[template, name].is_valid(decoded):
                return Expected(400, "invalid_workshop_name")
        operation = self.operation(item, request.method)
        if operation is None:
            return Expected(405, "method_not_allowed")
        body_spec = operation.get("requestBody")
        if body_spec is None:
            return None
        body = request.body or b""
        if len(body) > self.max_body_bytes:
            return Expected(413, "payload_too_large")
        parsed = parse_json_like_js(body)
        if parsed is _INVALID:
            return Expected(400, "invalid_json")
        with deep_recursion():
            valid = self.validator(body_spec["content"]["application/json"]["schema"]).is_valid(parsed)
        if not valid:
            return Expected(400, "invalid_reservation")
        return None

    def documented_response(self, request: RawRequest, status: int) -> dict[str, Any] | None:
        """The response object openapi.yaml documents for this request and status, or None."""
        template, item, _ = self.route(normalise_path(request.path))
        operation = self.operation(item, request.method) if template is not None else None
        responses = (operation or item.get("x-other-methods") or item)["responses"]
        return responses.get(str(status))

    def check_answer(self, request: RawRequest, answer: Answer, expected: Expected | None) -> list[str]:
        """Everything wrong with an answer: a 5xx, not the predicted status/error, not documented, not JSON."""
        problems: list[str] = []
        if answer.error is not None:
            return [f"no answer ({answer.error})"]
        status = answer.status
        if status >= 500:
            problems.append(f"HTTP {status} (a 5xx)")
        if expected is not None and status != expected.status:
            problems.append(f"HTTP {status}, documented {expected.status} {expected.error}")
        if expected is None and not 200 <= status < 300 and status != 409:
            problems.append(f"HTTP {status} for a valid request")
        if "application/json" not in answer.headers.get("content-type", ""):
            problems.append(f"content-type {answer.headers.get('content-type')!r}, not application/json")
        response = self.documented_response(request, status)
        if response is None:
            return problems + [f"HTTP {status} is not documented for {request.method} on this path"]
        for header, spec in response.get("headers", {}).items():
            value = answer.headers.get(header.lower())
            if value is None:
                problems.append(f"the documented {header} header is missing")
            elif not self.validator(spec["schema"]).is_valid(value):
                problems.append(f"{header}: {value!r} is not what is documented")
        if request.method == "HEAD":
            if answer.body:
                problems.append(f"a HEAD answer with a body: {answer.body[:60]!r}")
            return problems
        try:
            payload = json.loads(answer.body)
        except ValueError:
            return problems + [f"the body is not JSON: {answer.body[:80]!r}"]
        schema = response["content"]["application/json"]["schema"]
        errors = [e.message for e in self.validator(schema).iter_errors(payload)]
        if errors:
            problems.append(f"the body {payload!r} does not match the documented schema: {errors[0]}")
        if expected is not None and payload != {"error": expected.error}:
            problems.append(f"the body {payload!r}, documented {{'error': {expected.error!r}}}")
        return problems


class _Invalid:
    pass


_INVALID = _Invalid()


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json_like_js(body: bytes) -> Any:
    """JSON.parse(new TextDecoder().decode(body)) in Python; `_INVALID` where JSON.parse would throw."""
    text = body.decode("utf-8", errors="replace").removeprefix("\ufeff")  # TextDecoder drops one BOM
    with deep_recursion():
        try:
            return json.loads(text, parse_constant=_no_constants)
        except ValueError:
            return _INVALID


@contextlib.contextmanager
def deep_recursion(limit: int = 20_000) -> Iterator[None]:
    """Raise Python's recursion limit for a moment: JSON.parse takes bodies nested 2000 deep (4 KiB of `[`)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def decode_uri_component(text: str) -> str | None:
    """JavaScript's decodeURIComponent: None where it would throw a URIError (bad escape, invalid UTF-8)."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "%":
            pair = text[i + 1:i + 3]
            if len(pair) != 2 or any(c not in string.hexdigits for c in pair):
                return None
            out.append(int(pair, 16))
            i += 3
        else:
            out += text[i].encode("utf-8", errors="surrogatepass")
            i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


def normalise_path(path: str) -> str:
    """The pathname the Worker sees (WHATWG URL parsing): the query cut off, dot segments resolved.

    Only request targets made of RFC 3986 path characters and `%` are expected (no backslash, no `#`).
    """
    segments = path.split("?", 1)[0].removeprefix("/").split("/")
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        dots = DOT_SEGMENTS.get(segment.lower(), 0)
        if dots == 2 and out:
            out.pop()
        if dots:
            if last:
                out.append("")
            continue
        out.append(segment)
    return "/" + "/".join(out)


# --- the table of hand-written cases ----------------------------------------------------------------------------


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


def _json(value: object) -> bytes:
    return json.dumps(value).encode()


_R = f"/workshops/{SEED_WORKSHOP}/reservations"
_S = f"/workshops/{SEED_WORKSHOP}/status"
_X = {"requestId": "request-x", "seats": 1}

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


# --- generated cases: hypothesis strategies from the schemas -----------------------------------------------------


def strategies(contract: Contract) -> Any:
    """A hypothesis strategy of malformed `RawRequest`s derived from the contract's schemas and routes."""
    from hypothesis import strategies as st

    name_core = python_pattern(contract.name_pattern).removeprefix("^").removesuffix(r"\Z")
    id_core = python_pattern(contract.request_id_pattern).removeprefix("^").removesuffix(r"\Z")
    valid_name = st.from_regex(name_core, fullmatch=True)
    valid_id = st.from_regex(id_core, fullmatch=True)
    lo, hi = contract.seats_range
    texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=24)
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts
    json_values = st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4), max_leaves=12)

    def violations(valid: Any, pattern: str) -> Any:
        """Strings that break a `^[..][..]{m,n}$` pattern: case, first character, length, inserted characters."""
        short, long = length_bounds(pattern)
        forbidden = st.sampled_from("_ .~!$&'()*+,;=:@AZé/\\\n\t%?#\"{}0-")
        return st.one_of(
            valid.map(str.upper),
            st.builds(lambda c, s: c + s, st.sampled_from("0123456789-_.A~"), valid),
            st.builds(lambda s, c, i: s[:i] + c + s[i:], valid, forbidden, st.integers(0, long)),
            st.builds(lambda s, tail: (s + "a" * long)[:long] + tail, valid,
                      st.text("abcxyz0189-", min_size=1, max_size=40)),
            valid.map(lambda s: s[: short - 1]),
            valid.map(lambda s: s + "\n"),
            st.text(st.characters(exclude_categories=("Cs",)), max_size=60),
        )

    escapes = st.one_of(st.integers(0, 255).map(lambda b: f"%{b:02X}"), st.integers(0, 255).map(lambda b: f"%{b:02x}"),
                        st.sampled_from(BAD_ESCAPES))
    raw_segment = st.lists(st.sampled_from(PCHAR) | escapes, min_size=1, max_size=40).map("".join)
    bad_name = st.one_of(
        violations(valid_name, contract.name_pattern).filter(bool).map(lambda s: quote(s, safe=PCHAR)),
        raw_segment,
        valid_name.map(lambda s: "".join(f"%{ord(c):02X}" for c in s)) | valid_name.map(str.upper),
    )
    query = st.one_of(st.just(""), st.text(PCHAR + "/?%", max_size=20).map(lambda q: "?" + q))

    bad_id = st.one_of(violations(valid_id, contract.request_id_pattern),
                       st.integers(49, 6000).map(lambda n: "r" * n), json_values,
                       valid_id.map(lambda s: [s]), valid_id.map(lambda s: {"requestId": s}))
    bad_seats = st.one_of(
        st.integers().filter(lambda n: not lo <= n <= hi), st.integers(hi + 1, 2**80), st.integers(-(2**80), lo - 1),
        st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not (x.is_integer() and lo <= x <= hi)),
        st.integers(lo, hi).map(str), st.booleans(), st.none(), st.integers(lo, hi).map(lambda n: [n]),
        st.integers(lo, hi).map(lambda n: {"seats": n}), json_values)
    valid_seats = st.integers(lo, hi) | st.integers(lo, hi).map(float)

    @st.composite
    def reservation_body(draw: Any) -> Any:
        kind = draw(st.sampled_from(("bad-id", "bad-seats", "both", "no-id", "no-seats", "empty", "nested", "other")))
        extras = draw(st.dictionaries(texts.filter(lambda k: k not in ("requestId", "seats")), json_values,
                                      max_size=3))
        fields = {
            "bad-id": lambda: {"requestId": draw(bad_id), "seats": draw(valid_seats)},
            "bad-seats": lambda: {"requestId": draw(valid_id), "seats": draw(bad_seats)},
            "both": lambda: {"requestId": draw(bad_id), "seats": draw(bad_seats)},
            "no-id": lambda: {"seats": draw(valid_seats | bad_seats)},
            "no-seats": lambda: {"requestId": draw(valid_id | bad_id)},
            "empty": dict,
        }
        if kind == "nested":
            inner = {"requestId": draw(valid_id), "seats": draw(valid_seats)}
            return draw(st.sampled_from(([inner], {"reservation": inner}, [[inner]], {"data": [inner]})))
        if kind == "other":
            return draw(json_values.filter(lambda v: not isinstance(v, dict)))
        return {**extras, **fields[kind]()}

    def encode(value: Any, ascii_only: bool, compact: bool) -> bytes:
        separators = (",", ":") if compact else (", ", ": ")
        return json.dumps(value, ensure_ascii=ascii_only, separators=separators).encode("utf-8")

    json_body = st.builds(encode, reservation_body(), st.booleans(), st.booleans())
    samples = st.sampled_from((
        b"NaN", b'{"requestId":"abc","seats":NaN}', b'{"requestId":"abc","seats":Infinity}',
        b"{'requestId':'abc','seats':1}", b'{"requestId":"abc","seats":1}garbage', b'{"requestId":"abc","seats":1}{}',
        b"\xef\xbb\xbf\xef\xbb\xbf{}", b'{"requestId":"abc","seats":01}', b'{"requestId":"abc","seats":+1}',
        b'{"requestId":"abc","seats":.5}', b'{"requestId":"abc","seats":1,}', b'{"requestId":"abc" "seats":1}',
        b'{"requestId":"abc","seats":1,"requestId":"ABC"}', b'{"requestId":"ab\\u0000c","seats":1}',
        b'{"requestId":"\xff\xfe","seats":1}', b"\x00", b"[" * 2000 + b"]" * 2000, b'{"requestId":"abc","seats":1e400}',
        b'{"requestId":"abc","seats":4.000001}', b'{"requestId":"abc","seats":"\\u0031"}', b"true", b'"abc"',
    ))
    truncated = st.builds(lambda b, k: b[: max(0, len(b) - k)], json_body, st.integers(1, 30))
    oversized = st.one_of(
        st.builds(lambda s, n: encode({"requestId": s, "seats": 1, "pad": "x" * n}, True, True), valid_id,
                  st.integers(contract.max_body_bytes, 3 * contract.max_body_bytes)),
        st.integers(contract.max_body_bytes + 1, 4 * contract.max_body_bytes).map(lambda n: b" " * n),
    )

    def exactly(size: int) -> Any:
        """A body of exactly `size` bytes (the limit and one past it) whose content is invalid."""
        return st.builds(lambda s: encode({"requestId": s, "seats": hi + 1, "pad": ""}, True, True), valid_id).map(
            lambda b: b[:-2] + b"x" * (size - len(b)) + b'"}')

    any_body = st.one_of(json_body, json_body, st.binary(max_size=300), samples, truncated, oversized,
                         exactly(contract.max_body_bytes), exactly(contract.max_body_bytes + 1))
    content_type = st.sampled_from(("application/json", "text/plain", None, "application/x-www-form-urlencoded",
                                    "application/json; charset=utf-16"))
    templates = [template for template, _, _ in contract.routes]

    def fill(template: str, name: str) -> str:
        return template.replace("{name}", name)

    items = {template: item for template, _, item in contract.routes}

    def other_methods(template: str) -> list[str]:
        item = items[template]
        return [m for m in WORKER_METHODS if contract.operation(item, m) is None]

    body_requests = st.builds(
        lambda name, body, chunked, ctype, q: RawRequest("body", "POST", f"/workshops/{name}/reservations{q}", body,
                                                         chunked, ctype),
        valid_name, any_body, st.booleans(), content_type, query)
    name_requests = st.builds(
        lambda template, name, method, body, q: RawRequest("name", method, fill(template, name) + q, body),
        st.sampled_from([t for t in templates if "{name}" in t]), bad_name, st.sampled_from(WORKER_METHODS),
        st.none() | json_body, query)
    method_requests = st.sampled_from(templates).flatmap(lambda template: st.builds(
        lambda name, method, body, q: RawRequest("method", method, fill(template, name) + q, body),
        valid_name, st.sampled_from(other_methods(template)), st.none() | any_body, query))
    words = st.sampled_from(("workshops", "health", "status", "reservations", "", ".", "..", "%2e", "%2E%2e", ".%2e",
                             SEED_WORKSHOP, "Launch-Day", "%2F"))
    path_requests = st.builds(
        lambda parts, method, body, q: RawRequest("path", method, "/" + "/".join(parts) + q, body),
        st.lists(words | raw_segment, max_size=6), st.sampled_from(WORKER_METHODS), st.none() | json_body, query)
    return st.one_of(body_requests, body_requests, name_requests, method_requests, path_requests)


def generate(contract: Contract, examples: int, seed: int) -> list[RawRequest]:
    """`examples` distinct malformed requests (fewer only if hypothesis runs out of new ones), reproducible by seed."""
    from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
    from hypothesis import seed as seeded

    found: dict[RawRequest, None] = {}

    @settings(max_examples=examples + examples // 5 + 10, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @seeded(seed)
    @given(strategies(contract))
    def collect(request: RawRequest) -> None:
        assume(contract.expect(request) is not None)  # a valid request could change state: never send one
        found.setdefault(request, None)

    if examples > 0:
        collect()
    return list(found)[:examples]


@contextlib.contextmanager
def hypothesis_home(directory: Path) -> Iterator[None]:
    """Hypothesis keeps caches (unicode data, constants) in `.hypothesis/` of the working directory; put them
    into `directory` instead while the drill generates, then restore the previous setting."""
    from hypothesis import configuration

    previous = getattr(configuration, "__hypothesis_home_directory", None)
    configuration.set_hypothesis_home_dir(directory)
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(previous)


# --- sending, state, the drill -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What came back: status, headers (lower-case names), body; or the transport error."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    error: str | None = None


def _wire(request: RawRequest, port: int) -> list[bytes]:
    """The request's bytes in pieces: request line and headers, then the body (chunked: 1000-byte chunks)."""
    body = request.body or b""
    head = [f"{request.method} {request.path} HTTP/1.1", f"Host: {LOOPBACK}:{port}", "Connection: close"]
    if request.content_type:
        head.append(f"Content-Type: {request.content_type}")
    pieces = [body[i:i + 1000] for i in range(0, len(body), 1000)]
    if request.chunked:
        head.append("Transfer-Encoding: chunked")
        pieces = [f"{len(piece):x}\r\n".encode() + piece + b"\r\n" for piece in pieces] + [b"0\r\n\r\n"]
    elif request.body is not None or request.method in ("POST", "PUT", "PATCH"):
        head.append(f"Content-Length: {len(body)}")
    return ["\r\n".join([*head, "", ""]).encode("ascii"), *pieces]


def send_raw(port: int, request: RawRequest, timeout: float = REQUEST_TIMEOUT) -> Answer:
    """Send exactly the request's method, path and body on a new loopback connection; read the answer.

    Written to the socket directly (nothing normalises the path or the framing). If the server answers before
    the body is sent (as it may for a body over the limit), sending stops and the answer is read.
    """
    try:
        sock = socket.create_connection((LOOPBACK, port), timeout=timeout)
    except OSError as exc:
        return Answer(error=f"{type(exc).__name__}: {exc}")
    status = 0
    try:
        for piece in _wire(request, port):
            if select.select([sock], [], [], 0)[0]:
                break  # an early answer: read it instead of sending the rest
            try:
                sock.sendall(piece)
            except OSError:  # the server closed while the body was still coming; its answer may be readable
                break
        response = http.client.HTTPResponse(sock, method=request.method)
        response.begin()
        status = response.status
        headers = {k.lower(): v for k, v in response.getheaders()}
        return Answer(status, headers, response.read())
    except (OSError, http.client.HTTPException) as exc:
        return Answer(status, error=f"{type(exc).__name__}: {exc}"[:160])
    finally:
        sock.close()


def is_proxy_drop(answer: Answer) -> bool:
    """wrangler dev's own 500 "Network connection lost" (from miniflare's proxy, not from the Worker)."""
    return (answer.status >= 500 and "application/json" not in answer.headers.get("content-type", "")
            and b"Network connection lost" in answer.body)


def send_with_retry(port: int, request: RawRequest, retried: list[tuple[str, RawRequest]]) -> Answer:
    """`send_raw`, sent again (at most PROXY_RETRIES times) after a dev-server drop or a broken connection.

    Each retry appends (reason, request) to `retried`: "proxy drop" (wrangler dev's proxy answered 500
    "Network connection lost") or "connection" (reset or cut off before a whole answer arrived). Safe: the
    drill's requests change no state, and neither is an answer of the Worker. What still fails is judged.
    """
    answer = send_raw(port, request)
    for _ in range(PROXY_RETRIES):
        if is_proxy_drop(answer):
            retried.append(("proxy drop", request))
        elif answer.error is not None:
            retried.append(("connection", request))
        else:
            break
        time.sleep(0.2)
        answer = send_raw(port, request)
    return answer


@dataclass(frozen=True)
class StateDigest:
    """The Durable Object storage: per SQLite file, a digest of its rows and of its raw bytes."""

    rows: dict[str, str]  # file (relative to the state folder) -> sha256 of schema and rows
    raw: dict[str, str]  # file -> sha256 of the .sqlite and -wal bytes

    @property
    def combined(self) -> str:
        return hashlib.sha256(json.dumps(self.rows, sort_keys=True).encode()).hexdigest()


def durable_digest(state_dir: Path) -> StateDigest:
    """Digest every SQLite file under `<state_dir>/v3/do/`, read from a copy (with its WAL) by Python's sqlite3."""
    files = sorted((state_dir / "v3" / "do").rglob("*.sqlite"))
    if not files:
        raise LabError(f"no Durable Object SQLite files under {state_dir / 'v3' / 'do'}; was the workshop seeded?")
    rows: dict[str, str] = {}
    raw: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="bad-input-digest-") as scratch:
        for index, file in enumerate(files):
            name = str(file.relative_to(state_dir))
            target = Path(scratch) / f"{index}.sqlite"
            raw_hash = hashlib.sha256()
            for suffix in ("", "-wal"):
                source = Path(f"{file}{suffix}")
                if source.exists():
                    shutil.copyfile(source, f"{target}{suffix}")
                    raw_hash.update(source.read_bytes())
            raw[name] = raw_hash.hexdigest()
            rows[name] = _rows_digest(target)
    return StateDigest(rows, raw)


def _rows_digest(path: Path) -> str:
    digest = hashlib.sha256()
    conn = sqlite3.connect(path)
    try:
        tables = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
        digest.update(repr(tables).encode())
        for kind, name, _, _ in tables:
            if kind == "table":
                quoted = '"' + name.replace('"', '""') + '"'
                rows = sorted(repr(row) for row in conn.execute(f"SELECT * FROM {quoted}"))
                digest.update(f"{name}:{len(rows)}\n".encode() + "\n".join(rows).encode())
    finally:
        conn.close()
    return digest.hexdigest()


@dataclass
class Finding:
    """A request whose answer broke the contract."""

    request: RawRequest
    expected: Expected | None
    answer: Answer
    problems: list[str]

    def describe(self) -> str:
        expected = "valid" if self.expected is None else f"{self.expected.status} {self.expected.error}"
        got = self.answer.error or f"{self.answer.status} {self.answer.body[:80]!r}"
        return f"{self.request.describe()}: expected {expected}, got {got} — {'; '.join(self.problems)}"


@dataclass
class BadInputReport:
    """What the drill sent, what came back, and whether the contract and the state held."""

    seed: int
    examples: int
    workdir: Path
    table_sent: int = 0
    generated_sent: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # generated requests per kind
    statuses: dict[int, int] = field(default_factory=dict)  # answers of table + generated requests
    errors: dict[str, int] = field(default_factory=dict)
    server_errors: int = 0  # 5xx answers from the Worker
    findings: list[Finding] = field(default_factory=list)
    port: int = 0  # of the dev server (stopped when the drill returns)
    valid_checked: int = 0
    proxy_drops: int = 0  # 500 "Network connection lost" from wrangler dev's proxy, each sent again
    drops_after: Counter[str] = field(default_factory=Counter)  # what the request before a dropped one was
    connection_retries: Counter[str] = field(default_factory=Counter)  # broken connections, by request shape
    valid_problems: list[str] = field(default_factory=list)
    runtime_probes: list[tuple[str, int, str, bytes]] = field(default_factory=list)  # method, status, type, body
    status_before: dict[str, Any] = field(default_factory=dict)
    status_after: dict[str, Any] = field(default_factory=dict)
    digest_before: StateDigest | None = None
    digest_after: StateDigest | None = None

    @property
    def sent(self) -> int:
        return self.table_sent + self.generated_sent

    @property
    def status_unchanged(self) -> bool:
        return bool(self.status_before) and self.status_before == self.status_after

    @property
    def rows_unchanged(self) -> bool:
        return self.digest_before is not None and self.digest_after is not None and \
            self.digest_before.rows == self.digest_after.rows

    @property
    def raw_unchanged(self) -> bool:
        return self.digest_before is not None and self.digest_after is not None and \
            self.digest_before.raw == self.digest_after.raw

    @property
    def raw_changed(self) -> list[str]:
        """Files whose raw bytes (.sqlite + -wal) differ, by their last path part."""
        if self.digest_before is None or self.digest_after is None:
            return []
        before, after = self.digest_before.raw, self.digest_after.raw
        names = sorted(set(before) | set(after))
        return [Path(name).name[:12] for name in names if before.get(name) != after.get(name)]

    @property
    def ok(self) -> bool:
        return (self.sent > 0 and self.server_errors == 0 and not self.findings and not self.valid_problems
                and self.status_unchanged and self.rows_unchanged)

    def summary(self) -> str:
        """A few lines for the terminal."""
        def counts(items: dict[Any, int]) -> str:
            return ", ".join(f"{key} x{n}" for key, n in sorted(items.items(), key=lambda kv: str(kv[0]))) or "none"

        before, after = self.digest_before, self.digest_after
        files = len(before.rows) if before else 0
        lines = [
            f"bad-input drill: {self.table_sent} table cases + {self.generated_sent} generated (of {self.examples} "
            f"asked, seed {self.seed}; {counts(self.kinds)}), sent raw over loopback",
            f"answers: {counts({status or 'no answer': n for status, n in self.statuses.items()})}",
            f"error codes: {counts(self.errors)}",
            f"5xx from the Worker: {self.server_errors}; answers not as documented in openapi.yaml: "
            f"{len(self.findings)}",
            f"valid answers checked against openapi.yaml: {self.valid_checked}, problems: {len(self.valid_problems)}",
            f"seeded workshop {SEED_WORKSHOP!r}: status {'unchanged' if self.status_unchanged else 'CHANGED'} "
            f"{self.status_after or self.status_before}",
            f"Durable Object SQLite ({files} files under local-state/v3/do): rows "
            f"{'identical' if self.rows_unchanged else 'CHANGED'} (sha256 {before.combined[:16] if before else '-'} "
            f"-> {after.combined[:16] if after else '-'}); raw bytes "
            f"{'identical' if self.raw_unchanged else 'differ in ' + ', '.join(self.raw_changed) + ' (not judged)'}",
        ]
        if self.proxy_drops:
            lines.append(f"wrangler dev proxy drops (500 'Network connection lost' from miniflare, not the Worker; "
                         f"sent again, then judged): {self.proxy_drops}; the request before each: "
                         f"{counts(self.drops_after)}")
        if self.connection_retries:
            lines.append(f"connections reset or cut off before a whole answer (sent again, then judged): "
                         f"{counts(self.connection_retries)}")
        if self.runtime_probes:
            probes = ", ".join(f"{method} -> {status} {ctype or '-'}"
                               for method, status, ctype, _ in self.runtime_probes)
            lines.append(f"runtime probes (never reach the Worker, not judged): {probes}")
        for finding in self.findings[:15]:
            lines.append(f"  - {finding.describe()}")
        if len(self.findings) > 15:
            lines.append(f"  … and {len(self.findings) - 15} more")
        lines += [f"  - {problem}" for problem in self.valid_problems[:10]]
        lines.append("bad-input drill: " + ("PASS" if self.ok else "FAIL"))
        return "\n".join(lines)


def run_bad_input_drill(
    examples: int = 1000,
    workdir: str | Path | None = None,
    seed: int | None = None,
    progress: bool = True,
    openapi: Path = OPENAPI,
) -> BadInputReport:
    """Run the bad-input drill (see the module docstring) on a fresh run folder and dev server.

    Without `workdir` the run folder goes to a temporary directory, removed when everything held.
    """
    if not 0 <= examples <= MAX_EXAMPLES:
        raise LabError(f"--examples must be between 0 and {MAX_EXAMPLES}, got {examples}.")
    contract = Contract(load_openapi(openapi))
    seed = secrets.randbits(32) if seed is None else seed
    temporary = workdir is None
    root = Path(tempfile.mkdtemp(prefix="bad-input-drill-")) if temporary else Path(workdir).expanduser().resolve()
    run = create_run_folder(root)
    write_wrangler_config(run)
    with hypothesis_home(run.root / ".hypothesis"):
        generated = generate(contract, examples, seed)
    report = BadInputReport(seed=seed, examples=examples, workdir=run.root)
    report.kinds = dict(Counter(request.kind for request in generated))
    with start_dev_server(run, log_name="bad-input-drill.log") as server:
        report.port = server.port
        _drill(server, run, contract, generated, report, progress)
    if temporary and report.ok:
        shutil.rmtree(root, ignore_errors=True)
    return report


def _drill(server: DevServer, run: RunFolder, contract: Contract, generated: list[RawRequest],
           report: BadInputReport, progress: bool) -> None:
    from tqdm import tqdm

    seed_requests = [RawRequest("seed", "POST", _R, _json({"requestId": rid, "seats": seats}))
                     for rid, seats in (SEED_ACCEPTED, SEED_REJECTED)]
    drops: list[tuple[str, RawRequest]] = []
    seeds = [send_with_retry(server.port, request, drops) for request in seed_requests]
    if [answer.status for answer in seeds] != [201, 409]:
        raise LabError(f"seeding {SEED_WORKSHOP!r} did not answer 201 then 409: "
                       f"{[(a.status, a.body[:100], a.error) for a in seeds]}; see {server.log_path}.")
    with LabClient(server.base_url) as client:
        report.status_before = client.status(SEED_WORKSHOP)
    report.digest_before = durable_digest(run.state_dir)

    table = [(case.request(), Expected(case.status, case.error)) for case in CASES]
    planned = table + [(request, contract.expect(request)) for request in generated]
    bar = tqdm(planned, file=sys.stderr, unit="req", desc="bad input", dynamic_ncols=True,
               disable=not (progress and sys.stderr.isatty()))
    statuses: Counter[int] = Counter()
    errors: Counter[str] = Counter()
    previous: RawRequest | None = None
    silent = 0  # requests in a row without an answer: a dead or hung server ends the drill early
    for request, expected in bar:
        before = len(drops)
        answer = send_with_retry(server.port, request, drops)
        silent = silent + 1 if answer.error is not None else 0
        if silent >= MAX_SILENT or server.proc.poll() is not None:
            bar.close()
            raise LabError(f"the dev server stopped answering ({answer.error or 'it exited'}) after "
                           f"{len(report.findings)} findings; see {server.log_path}.")
        reasons = {reason for reason, _ in drops[before:]}
        if "proxy drop" in reasons and previous is not None:
            report.drops_after[previous.kind if previous.kind.startswith("table") else _shape(previous)] += 1
        previous = request
        statuses[answer.status] += 1
        if answer.status >= 500:
            report.server_errors += 1
        with contextlib.suppress(ValueError, AttributeError):
            errors[json.loads(answer.body).get("error", "-")] += 1
        problems = contract.check_answer(request, answer, expected)
        if problems:
            report.findings.append(Finding(request, expected, answer, problems))
    report.table_sent, report.generated_sent = len(table), len(generated)
    report.statuses, report.errors = dict(statuses), dict(errors)

    for method in RUNTIME_PROBES:
        answer = send_with_retry(server.port, RawRequest("probe", method, _S), drops)
        report.runtime_probes.append((method, answer.status, answer.headers.get("content-type", ""), answer.body[:80]))

    # Valid requests inside the window: health, status and the replays of both seeds. They must conform to
    # openapi.yaml (as must the seeds' own answers), the replays must repeat the first decisions, and none of
    # them may change durable state either.
    valid = [RawRequest("valid", "GET", "/health", content_type=None),
             RawRequest("valid", "GET", f"/workshops/{SEED_WORKSHOP}/status", content_type=None)]
    checked = [*zip(seed_requests, seeds, strict=True)]
    checked += [(request, send_with_retry(server.port, request, drops)) for request in valid + seed_requests]
    for request, answer in checked:
        report.valid_checked += 1
        report.valid_problems += [f"{request.describe()}: {p}" for p in contract.check_answer(request, answer, None)]
    for first, again in zip(seeds, [answer for _, answer in checked[-len(seeds):]], strict=True):
        replay = {**json.loads(first.body), "replayed": True}
        try:
            got = json.loads(again.body)
        except ValueError:
            got = again.body[:80]
        if (again.status, got) != (first.status, replay):
            report.valid_problems.append(f"a replay answered {again.status} {got!r}, not {first.status} {replay}")

    report.proxy_drops = sum(reason == "proxy drop" for reason, _ in drops)
    report.connection_retries = Counter(_shape(request) for reason, request in drops if reason == "connection")
    with LabClient(server.base_url) as client:
        report.status_after = client.status(SEED_WORKSHOP)
    report.digest_after = durable_digest(run.state_dir)


def _shape(request: RawRequest) -> str:
    """A short class of a request, for the drop statistics: method, body size class, chunked or not."""
    body = request.body or b""
    size = "no body" if request.body is None else f"body {'over' if len(body) > 4096 else 'within'} 4 KiB"
    return f"{request.method} {size}{' chunked' if request.chunked else ''}"



def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `drill bad-input`; the command runs `main`."""
    parser.add_argument("--examples", type=bounded_int(0, MAX_EXAMPLES), default=1000,
                        help="generated malformed requests besides the table (default 1000)")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: a random one, printed)")
    parser.add_argument("--workdir", default=None,
                        help="run folder for config, state and logs (default: a temporary one, kept only on failure)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (it is off anyway without a TTY)")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run the drill from parsed arguments and print the summary; 0 only if everything held."""
    report = run_bad_input_drill(args.examples, args.workdir, seed=args.seed, progress=not args.no_progress)
    print(report.summary())
    kept = "" if not report.ok or args.workdir else " (removed)"
    print(f"run folder: {report.workdir}{kept}")
    return 0 if report.ok else 1

