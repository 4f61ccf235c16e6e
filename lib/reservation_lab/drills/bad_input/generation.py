"""Generated malformed requests: hypothesis strategies derived from the contract's schemas and routes.

`strategies(contract)` puts the request kinds together (bodies that break `ReservationRequest`, names that break
the name pattern, methods without an operation, random paths); `generate` draws distinct ones, reproducibly.
Hypothesis is imported only when a strategy is built (the CLI starts without it).
"""

from __future__ import annotations

import contextlib
import json
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from reservation_lab.drills.bad_input.cases import SEED_WORKSHOP
from reservation_lab.drills.bad_input.openapi import length_bounds, python_pattern
from reservation_lab.drills.bad_input.oracle import Contract
from reservation_lab.drills.bad_input.wire import RawRequest

# Methods workerd's HTTP parser recognises (so they reach the Worker); others are answered by the runtime.
WORKER_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PURGE", "COPY", "LOCK",
                  "MKCOL", "MOVE", "PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "ACL", "REPORT", "MKACTIVITY",
                  "CHECKOUT", "MERGE", "MSEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE", "QUERY", "BAN")
PCHAR = string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@"  # RFC 3986 path characters, unescaped
BAD_ESCAPES = ("%", "%z", "%zz", "%4", "%G1", "%%", "%2", "%E0%A4%A", "%FF", "%C3", "%ED%A0%80", "%C0%AF",
               "%2F", "%2f", "%20", "%00", "%C3%A9", "%41", "%5F", "%2e", "%2E", "%F0%9F%98")
BAD_JSON = (
    b"NaN", b'{"requestId":"abc","seats":NaN}', b'{"requestId":"abc","seats":Infinity}',
    b"{'requestId':'abc','seats':1}", b'{"requestId":"abc","seats":1}garbage', b'{"requestId":"abc","seats":1}{}',
    b"\xef\xbb\xbf\xef\xbb\xbf{}", b'{"requestId":"abc","seats":01}', b'{"requestId":"abc","seats":+1}',
    b'{"requestId":"abc","seats":.5}', b'{"requestId":"abc","seats":1,}', b'{"requestId":"abc" "seats":1}',
    b'{"requestId":"abc","seats":1,"requestId":"ABC"}', b'{"requestId":"ab\\u0000c","seats":1}',
    b'{"requestId":"\xff\xfe","seats":1}', b"\x00", b"[" * 2000 + b"]" * 2000, b'{"requestId":"abc","seats":1e400}',
    b'{"requestId":"abc","seats":4.000001}', b'{"requestId":"abc","seats":"\\u0031"}', b"true", b'"abc"',
)  # hand-picked bodies JSON.parse refuses or that are not a reservation
CONTENT_TYPES = ("application/json", "text/plain", None, "application/x-www-form-urlencoded",
                 "application/json; charset=utf-16")
PATH_WORDS = ("workshops", "health", "status", "reservations", "", ".", "..", "%2e", "%2E%2e", ".%2e",
              SEED_WORKSHOP, "Launch-Day", "%2F")


@dataclass(frozen=True)
class _Atoms:
    """The strategies every part is built from: valid names and ids, the seat range, short texts, JSON values,
    and raw path segments (path characters and percent escapes, good and bad)."""

    valid_name: Any
    valid_id: Any
    seats: tuple[int, int]
    texts: Any
    json_values: Any
    raw_segment: Any


def _atoms(contract: Contract) -> _Atoms:
    from hypothesis import strategies as st

    name_core = python_pattern(contract.name_pattern).removeprefix("^").removesuffix(r"\Z")
    id_core = python_pattern(contract.request_id_pattern).removeprefix("^").removesuffix(r"\Z")
    texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=24)
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts
    json_values = st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4), max_leaves=12)
    escapes = st.one_of(st.integers(0, 255).map(lambda b: f"%{b:02X}"), st.integers(0, 255).map(lambda b: f"%{b:02x}"),
                        st.sampled_from(BAD_ESCAPES))
    raw_segment = st.lists(st.sampled_from(PCHAR) | escapes, min_size=1, max_size=40).map("".join)
    return _Atoms(st.from_regex(name_core, fullmatch=True), st.from_regex(id_core, fullmatch=True),
                 contract.seats_range, texts, json_values, raw_segment)


def _violations(valid: Any, pattern: str) -> Any:
    """Strings that break a `^[..][..]{m,n}$` pattern: case, first character, length, inserted characters."""
    from hypothesis import strategies as st

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


def _bad_names(contract: Contract, a: _Atoms) -> Any:
    """Workshop names (as path segments) that break the name pattern, as escapes, bad escapes or upper case."""
    from hypothesis import strategies as st

    return st.one_of(
        _violations(a.valid_name, contract.name_pattern).filter(bool).map(lambda s: quote(s, safe=PCHAR)),
        a.raw_segment,
        a.valid_name.map(lambda s: "".join(f"%{ord(c):02X}" for c in s)) | a.valid_name.map(str.upper),
    )


def _bad_ids(contract: Contract, a: _Atoms) -> Any:
    """requestIds that break the pattern, are far too long, or are not strings."""
    from hypothesis import strategies as st

    return st.one_of(_violations(a.valid_id, contract.request_id_pattern),
                     st.integers(49, 6000).map(lambda n: "r" * n), a.json_values,
                     a.valid_id.map(lambda s: [s]), a.valid_id.map(lambda s: {"requestId": s}))


def _bad_seats(a: _Atoms) -> Any:
    """Seat values out of range, fractional, huge, or not numbers."""
    from hypothesis import strategies as st

    lo, hi = a.seats
    return st.one_of(
        st.integers().filter(lambda n: not lo <= n <= hi), st.integers(hi + 1, 2**80), st.integers(-(2**80), lo - 1),
        st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not (x.is_integer() and lo <= x <= hi)),
        st.integers(lo, hi).map(str), st.booleans(), st.none(), st.integers(lo, hi).map(lambda n: [n]),
        st.integers(lo, hi).map(lambda n: {"seats": n}), a.json_values)


def _reservation_bodies(contract: Contract, a: _Atoms) -> Any:
    """JSON values that are no `ReservationRequest`: a bad field, a missing one, extra nesting, not an object."""
    from hypothesis import strategies as st

    bad_id, bad_seat = _bad_ids(contract, a), _bad_seats(a)
    valid_seats = st.integers(*a.seats) | st.integers(*a.seats).map(float)
    extra_keys = a.texts.filter(lambda k: k not in ("requestId", "seats"))

    @st.composite
    def reservation_body(draw: Any) -> Any:
        kind = draw(st.sampled_from(("bad-id", "bad-seats", "both", "no-id", "no-seats", "empty", "nested", "other")))
        extras = draw(st.dictionaries(extra_keys, a.json_values, max_size=3))
        fields = {
            "bad-id": lambda: {"requestId": draw(bad_id), "seats": draw(valid_seats)},
            "bad-seats": lambda: {"requestId": draw(a.valid_id), "seats": draw(bad_seat)},
            "both": lambda: {"requestId": draw(bad_id), "seats": draw(bad_seat)},
            "no-id": lambda: {"seats": draw(valid_seats | bad_seat)},
            "no-seats": lambda: {"requestId": draw(a.valid_id | bad_id)},
            "empty": dict,
        }
        if kind == "nested":
            inner = {"requestId": draw(a.valid_id), "seats": draw(valid_seats)}
            return draw(st.sampled_from(([inner], {"reservation": inner}, [[inner]], {"data": [inner]})))
        if kind == "other":
            return draw(a.json_values.filter(lambda v: not isinstance(v, dict)))
        return {**extras, **fields[kind]()}

    return reservation_body()


def _encode(value: Any, ascii_only: bool, compact: bool) -> bytes:
    """`value` as JSON bytes, with or without escapes of non-ASCII characters and spaces after separators."""
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(value, ensure_ascii=ascii_only, separators=separators).encode("utf-8")


def _bodies(contract: Contract, a: _Atoms, json_body: Any) -> Any:
    """Any malformed body: invalid reservations, random bytes, broken or truncated JSON, bodies over the limit,
    and invalid bodies of exactly the limit and one byte past it."""
    from hypothesis import strategies as st

    limit, hi = contract.max_body_bytes, a.seats[1]
    truncated = st.builds(lambda b, k: b[: max(0, len(b) - k)], json_body, st.integers(1, 30))
    oversized = st.one_of(
        st.builds(lambda s, n: _encode({"requestId": s, "seats": 1, "pad": "x" * n}, True, True), a.valid_id,
                  st.integers(limit, 3 * limit)),
        st.integers(limit + 1, 4 * limit).map(lambda n: b" " * n),
    )

    def exactly(size: int) -> Any:
        """A body of exactly `size` bytes whose content is invalid."""
        return st.builds(lambda s: _encode({"requestId": s, "seats": hi + 1, "pad": ""}, True, True), a.valid_id).map(
            lambda b: b[:-2] + b"x" * (size - len(b)) + b'"}')

    return st.one_of(json_body, json_body, st.binary(max_size=300), st.sampled_from(BAD_JSON), truncated, oversized,
                     exactly(limit), exactly(limit + 1))


def _requests(contract: Contract, a: _Atoms) -> Any:
    """The four kinds of malformed request ("body", "name", "method", "path"), bodies twice as often."""
    from hypothesis import strategies as st

    json_body = st.builds(_encode, _reservation_bodies(contract, a), st.booleans(), st.booleans())
    any_body = _bodies(contract, a, json_body)
    query = st.one_of(st.just(""), st.text(PCHAR + "/?%", max_size=20).map(lambda q: "?" + q))
    templates = [template for template, _, _ in contract.routes]
    items = {template: item for template, _, item in contract.routes}

    def fill(template: str, name: str) -> str:
        return template.replace("{name}", name)

    def other_methods(template: str) -> list[str]:
        return [m for m in WORKER_METHODS if contract.operation(items[template], m) is None]

    body_requests = st.builds(
        lambda name, body, chunked, ctype, q: RawRequest("body", "POST", f"/workshops/{name}/reservations{q}", body,
                                                         chunked, ctype),
        a.valid_name, any_body, st.booleans(), st.sampled_from(CONTENT_TYPES), query)
    name_requests = st.builds(
        lambda template, name, method, body, q: RawRequest("name", method, fill(template, name) + q, body),
        st.sampled_from([t for t in templates if "{name}" in t]), _bad_names(contract, a),
        st.sampled_from(WORKER_METHODS), st.none() | json_body, query)
    method_requests = st.sampled_from(templates).flatmap(lambda template: st.builds(
        lambda name, method, body, q: RawRequest("method", method, fill(template, name) + q, body),
        a.valid_name, st.sampled_from(other_methods(template)), st.none() | any_body, query))
    path_requests = st.builds(
        lambda parts, method, body, q: RawRequest("path", method, "/" + "/".join(parts) + q, body),
        st.lists(st.sampled_from(PATH_WORDS) | a.raw_segment, max_size=6), st.sampled_from(WORKER_METHODS),
        st.none() | json_body, query)
    return st.one_of(body_requests, body_requests, name_requests, method_requests, path_requests)


def strategies(contract: Contract) -> Any:
    """A hypothesis strategy of malformed `RawRequest`s derived from the contract's schemas and routes."""
    return _requests(contract, _atoms(contract))


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
