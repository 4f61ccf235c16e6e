"""What the Worker's JavaScript makes of a request, in Python: WHATWG URL paths, decodeURIComponent, JSON.parse."""

from __future__ import annotations

import contextlib
import json
import string
import sys
from collections.abc import Iterator
from typing import Any

DOT_SEGMENTS = {".": 1, "%2e": 1, "..": 2, ".%2e": 2, "%2e.": 2, "%2e%2e": 2}  # segment -> 1 (stay) or 2 (up)


class _Invalid:
    """The type of `INVALID`."""


INVALID = _Invalid()  # what parse_json_like_js returns where JSON.parse would throw


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json_like_js(body: bytes) -> Any:
    """JSON.parse(new TextDecoder().decode(body)) in Python; `INVALID` where JSON.parse would throw."""
    text = body.decode("utf-8", errors="replace").removeprefix("\ufeff")  # TextDecoder drops one BOM
    with deep_recursion():
        try:
            return json.loads(text, parse_constant=_no_constants)
        except ValueError:
            return INVALID


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
