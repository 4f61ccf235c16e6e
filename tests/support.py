"""Helpers shared by the tests (one place, imported as `from tests.support import ...`)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from reservation_lab.domain.facts import CAPACITY
from reservation_lab.errors import InvariantError, LabError
from reservation_lab.runtime.processes import live_processes

# Every error that carries a catalog message (`Localized` itself is a mixin, not an exception type).
LOCALIZED_ERRORS: tuple[type[BaseException], ...] = (LabError, InvariantError)


@contextmanager
def raises_key(key: str, error: type[BaseException] | tuple[type[BaseException], ...] = LOCALIZED_ERRORS,
               /, **values: Any) -> Iterator[pytest.ExceptionInfo[BaseException]]:
    """Expect `error` with catalog key `key` and, for each given value, `message.values[name] == value`.

    Asserts what the error says, not its English text, so copy-edits of en.toml break no test. `key` and `error`
    are positional-only, so a catalog value may be named `error` too. Yields pytest's ExceptionInfo (filled once
    the block has raised) for further asserts.
    """
    with pytest.raises(error) as caught:
        yield caught
    message = getattr(caught.value, "message", None)
    if message is None:
        raise AssertionError(f"{caught.typename} carries no catalog message: {caught.value}")
    if message.key != key:
        raise AssertionError(f"expected key {key!r}, got {message.key!r}: {caught.value}")
    for name, expected in values.items():
        if name not in message.values:
            raise AssertionError(f"{key!r} has no value {name!r} (values: {dict(message.values)!r})")
        if message.values[name] != expected:
            raise AssertionError(f"{key!r}: expected {name}={expected!r}, got {message.values[name]!r}")


def lab_processes() -> list[str]:
    """Command lines of wrangler/workerd/watchdog processes started from this checkout."""
    from reservation_lab.paths import REPO_ROOT

    node_modules = str(REPO_ROOT / "worker" / "node_modules")
    ours = (str(REPO_ROOT), sys.executable)  # a watchdog of another checkout (a second clone's tests) is not ours
    return [
        f"{info.pid}: {info.cmdline[:160]}"
        for info in live_processes()
        if (node_modules in info.cmdline and ("workerd" in info.cmdline or " dev " in info.cmdline))
        or ("reservation_lab.runtime.watchdog" in info.cmdline and any(mark in info.cmdline for mark in ours))
    ]


# Hand-made answers and statuses for the checker's histories (tests/domain, tests/i18n).


def status(reserved: int, accepted: int = 0, rejected: int = 0, capacity: int = CAPACITY,
           seats: int | None = None) -> dict[str, int]:
    return {"capacity": capacity, "reserved": reserved, "acceptedRequests": accepted, "rejectedRequests": rejected,
            "acceptedSeats": reserved if seats is None else seats}


def body(request_id: str, status_: str | None, reserved: int | None = None, seats: int = 1,
         replayed: bool = False, capacity: int = CAPACITY) -> dict[str, Any]:
    """A response body; status None makes an undecided response (no status)."""
    if status_ is None:
        return {"requestId": request_id, "seats": seats, "error": "transport"}
    return {"workshop": "lab", "requestId": request_id, "seats": seats, "status": status_, "capacity": capacity,
            "reserved": reserved, "replayed": replayed}


def acc(request_id: str, reserved: int, seats: int = 1, **kw: Any) -> dict[str, Any]:
    return body(request_id, "accepted", reserved, seats, **kw)


def rej(request_id: str, reserved: int, seats: int = 1, **kw: Any) -> dict[str, Any]:
    return body(request_id, "rejected", reserved, seats, **kw)


# What a learner reads: the executed cells' outputs, and lines among them that read as English.

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Words that mark an English sentence and are no word of German, Portuguese or Spanish.
ENGLISH = re.compile(r"\b(the|is|are|were|not|and|with|of|to|first|already|maybe|earlier|does|did|exist|write|"
                     r"which|this|that|above|below|yet|defined|logged|your|stop|pick|named|sees|got|"
                     r"expected|answered|failed|passed|waiting|ready|after|restarted|wrote|lines|attempts?)\b",
                     re.IGNORECASE)
# Not prose: a shown command line, code in backticks, quoted values and quoted words of a tool (straight or
# typographic quotes: „…“ “…” «…»), paths and URLs, JSON keys, JupyterLab's own (English) menu path, and the lines
# the pinned wrangler itself prints after a shown wrangler command.
NOT_PROSE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|„[^“]*“|“[^”]*”|«[^»]*»|\S*/\S*|https?://\S+|\w+=\S*|Run → [^)]*")
COMMAND = re.compile(r"^(\(\w+\) )?\[[^\]]*\] \$ ")  # a shown command, with the rehearsal's mark if any


def english_lines(text: str) -> list[str]:
    """The lines of `text` that read as English prose (commands, code, data and wrangler's own words aside)."""
    found = []
    in_tool_output = False
    for line in ANSI.sub("", text).splitlines():
        if COMMAND.match(line):
            in_tool_output = "npx wrangler " in line  # wrangler's own (English) words follow, as it prints them
            continue
        if in_tool_output:
            continue
        if ENGLISH.search(NOT_PROSE.sub(" ", line)):
            found.append(line)
    return found


def execute_cells(nb: Any, cwd: Path, allow_errors: bool = True, timeout: int = 120,
                  kernel_name: str = "python3") -> None:
    """Run a notebook in place with nbclient, the kernel on socket files like every unattended run of the course."""
    from nbclient import NotebookClient

    from reservation_lab.jupyter.socket_kernels import AsyncSocketFileKernelManager

    NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, allow_errors=allow_errors,
                   kernel_manager_class=AsyncSocketFileKernelManager,
                   resources={"metadata": {"path": str(cwd)}}).execute()


def with_environment_bin() -> dict[str, str]:
    """os.environ with this environment's bin first on PATH, as when it is activated (tools that call others)."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def printed(cell: Any, stream: str = "stdout") -> str:
    """What a cell printed to one stream, whole. A kernel may send one print() as several stream messages (it
    flushes on a timer, and on a busy machine the timer can fire between "text" and "\\n"), so a test compares the
    joined text, never one output."""
    return "".join(output.text for output in cell.get("outputs", [])
                   if output.output_type == "stream" and output.name == stream)


def output_text(cell: Any) -> str:
    """Everything an executed cell shows as text (streams, error tracebacks, text/plain of non-figures)."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type == "error":
            parts.append("\n".join(output.traceback))
        elif "image/svg+xml" not in output.get("data", {}):  # a figure's text/plain is its repr, not a line shown
            parts.append(str(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


# The browser tests' Chromium (Debian's package; `./lab test` installs it as root) and its flags, as the machine
# notes prescribe: no sandbox as root, no GPU, and nothing that reaches out on its own.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def skip_without_chromium() -> None:
    """Skip the calling test, with the reason, when Chromium or Playwright is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (`./lab test` does so when run as root)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (every launch a fresh, empty profile); skips without them."""
    skip_without_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()
