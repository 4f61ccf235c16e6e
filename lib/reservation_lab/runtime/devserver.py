"""Start and stop `wrangler dev` (workerd + SQLite on loopback) as one process group."""

from __future__ import annotations

import atexit
import os
import secrets
import subprocess
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from reservation_lab.errors import DevServerError, PortBusyError
from reservation_lab.i18n import Message, quoted
from reservation_lab.runtime.commands import announce, relative_args, wrangler_words
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.layout import RunLayout
from reservation_lab.runtime.ports import (
    LOOPBACK,
    ensure_port_free,
    free_port,
    port_in_use_reported,
    port_is_free,
)
from reservation_lab.runtime.processes import group_members, stop_process_group
from reservation_lab.runtime.redact import strip_ansi
from reservation_lab.runtime.toolchain import find_toolchain
from reservation_lab.runtime.waiting import wait_until
from reservation_lab.runtime.watchdog import MARKER
from reservation_lab.runtime.wrangler import wrangler_env

_RUNNING: weakref.WeakSet[DevServer] = weakref.WeakSet()


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it over `path` (readers see old or new)."""
    temporary = path.with_name(f".{path.name}.writing")
    temporary.write_text(text)
    os.replace(temporary, path)


NOTHING_LEFT: dict[str, int | bool] = {"processesLeft": 0, "portFree": True}  # leftovers() of a server that is gone


@dataclass(eq=False)
class DevServer:
    """One running `wrangler dev`; use as a context manager or call stop()."""

    run: RunLayout
    port: int
    log_path: Path
    proc: subprocess.Popen
    watchdog: subprocess.Popen
    started_at: float
    log_offset: int = 0
    healthy_after: float = 0.0
    port_tries: int = 1
    stopped: bool = field(default=False)

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def pgid(self) -> int:
        return self.proc.pid

    def processes(self) -> list[int]:
        """PIDs of this server's process group that are still alive."""
        return group_members(self.pgid)

    def log_text(self, since_start: bool = False) -> str:
        """The log file's text (only what this server wrote with since_start)."""
        if not self.log_path.exists():
            return ""
        with self.log_path.open("rb") as log:
            log.seek(self.log_offset if since_start else 0)
            return strip_ansi(log.read().decode(errors="replace"))

    def log_size(self) -> int:
        """How many bytes the log holds now (a mark for wait_for_log)."""
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def wait_for_log(self, text: str, since: int, timeout: float, interval: float = 0.05) -> bool:
        """Wait until `text` appears in what the log gained after byte `since`; reads only the new bytes."""
        state = {"position": since, "recent": ""}

        def appeared() -> bool:
            with self.log_path.open("rb") as log:
                log.seek(state["position"])
                chunk = log.read()
            state["position"] += len(chunk)
            state["recent"] = (state["recent"] + chunk.decode(errors="replace"))[-(len(text) + 4096):]
            return text in strip_ansi(state["recent"])

        return wait_until(appeared, timeout, interval=interval)

    def reload_with(self, path: Path, text: str, timeout: float) -> bool:
        """Write `text` to the served source file `path` atomically (a build never sees half of it) and wait for
        wrangler dev's own reload; False when none is logged within `timeout` (its file watcher can miss or lag a
        change on a busy machine, and a source that does not build never reloads): the caller restarts instead."""
        mark = self.log_size()
        write_atomically(path, text)
        return self.wait_for_log(RELOAD_LINE, since=mark, timeout=timeout)

    def stop(self) -> None:
        """TERM the whole group, wait until no process and no port is left, KILL as fallback."""
        if self.stopped:
            return
        stop_process_group(self.pgid, self.proc)
        self._release_watchdog()
        # A server that never became healthy may never have bound its port (someone else holds it).
        if self.healthy_after:
            wait_until(lambda: port_is_free(self.port), 10)
        self.stopped = True
        _RUNNING.discard(self)

    def leftovers(self) -> dict[str, int | bool]:  # NOTHING_LEFT when all is gone
        """What is left of this server: its live processes (a count) and whether its port is free."""
        return {"processesLeft": len(self.processes()), "portFree": port_is_free(self.port)}

    def stop_and_prove(self) -> None:
        """stop(), then raise DevServerError unless no process of the group, no watchdog and no listener is left."""
        self.stop()
        left, watchdog_ended = self.leftovers(), self.watchdog.poll() is not None
        if left["processesLeft"] or not left["portFree"] or not watchdog_ended:
            raise DevServerError("errors.server_not_ended", port=self.port, left=quoted(self.processes()),
                                 free=yes_no(left["portFree"]), watchdog=yes_no(watchdog_ended))

    def _release_watchdog(self) -> None:
        if self.watchdog.stdin is not None:
            self.watchdog.stdin.close()
        try:
            self.watchdog.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.watchdog.kill()
            self.watchdog.wait()

    def __enter__(self) -> DevServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


PORT_TRIES = 3  # fresh picks after "address already in use": another process took the picked port


def yes_no(value: bool) -> Message:
    """A yes/no in the learner's language (never Python's True/False in a sentence)."""
    return Message("invariants.yes" if value else "invariants.no", {})


class _AddressInUse(Exception):
    """wrangler dev exited because a port it was given was taken after it was picked."""

    def __init__(self, port: int, error: DevServerError) -> None:
        super().__init__(str(error))
        self.port = port
        self.error = error


def start_dev_server(
    run: RunLayout,
    port: int = 0,
    timeout: float = 60.0,
    log_name: str = "dev.log",
    config: Path | None = None,
    state_dir: Path | None = None,
    progress: Callable[[float], None] | None = None,
    ctx: Context = QUIET,
) -> DevServer:
    """Start `wrangler dev` for the run on 127.0.0.1:port (0 = free port) and wait for /health.

    `config` and `state_dir` default to the run's own; pass others to serve another Worker from the run folder.
    `progress`, if given, is called about twice a second with the seconds waited so far for /health.
    The command line is announced as `ctx` says (QUIET, the default, for a server that is no step of the
    learner's, e.g. the Cloudflare double's own).
    A picked port (port 0, and always the inspector port) that another process takes before wrangler binds it
    is replaced by a fresh pick, up to PORT_TRIES starts; a port the caller chose is never replaced.
    """
    config = config or run.config
    state_dir = state_dir or run.state_dir
    if not config.exists():
        raise DevServerError("errors.config_missing", path=config)
    chosen = ensure_port_free(port) if port else 0
    taken: list[int] = []
    for attempt in range(1, PORT_TRIES + 1):
        listen_port, inspector_port = chosen or free_port(), free_port()
        try:
            server = _start_once(run, port=listen_port, inspector_port=inspector_port, timeout=timeout,
                                 log_name=log_name, config=config, state_dir=state_dir, progress=progress, ctx=ctx)
        except _AddressInUse as race:
            if chosen and race.port == chosen:
                raise PortBusyError("errors.port_busy", port=chosen, host=LOOPBACK) from race.error
            taken.append(race.port)
            continue
        server.port_tries = attempt
        return server
    raise DevServerError("errors.ports_all_taken", tries=PORT_TRIES, ports=", ".join(map(str, taken)))


def _start_once(
    run: RunLayout,
    *,
    port: int,
    inspector_port: int,
    timeout: float,
    log_name: str,
    config: Path,
    state_dir: Path,
    progress: Callable[[float], None] | None,
    ctx: Context,
) -> DevServer:
    toolchain = find_toolchain()
    log_path = run.logs_dir / log_name
    log_path.parent.mkdir(parents=True, exist_ok=True)
    args = relative_args([
        "dev",
        "--config", str(config),
        "--ip", LOOPBACK,
        "--port", str(port),
        "--inspector-port", str(inspector_port),
        "--persist-to", str(state_dir),
        "--show-interactive-dev-session=false",
    ], run.root)
    announce(run.root, wrangler_words(*args), ctx=ctx)
    argv = toolchain.wrangler_argv(*args)
    started_at = time.monotonic()
    log_offset = log_path.stat().st_size if log_path.exists() else 0
    marker = secrets.token_hex(8)  # the watchdog starts first and knows the server by it (runtime.watchdog)
    watchdog = subprocess.Popen([sys.executable, "-m", "reservation_lab.runtime.watchdog", marker],
                                stdin=subprocess.PIPE, start_new_session=True)
    assert watchdog.stdin is not None
    try:
        with log_path.open("ab") as log:
            proc = subprocess.Popen(
                argv,
                cwd=run.root,
                env={**wrangler_env(run.logs_dir), MARKER: marker},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
    except BaseException:
        watchdog.stdin.close()  # nothing started: the watchdog finds nothing marked and ends
        watchdog.wait(timeout=15)
        raise
    watchdog.stdin.write(f"{proc.pid}\n".encode())  # start_new_session: the server's group is its pid
    watchdog.stdin.flush()
    server = DevServer(run, port, log_path, proc, watchdog, started_at, log_offset=log_offset)
    _RUNNING.add(server)
    try:
        _wait_until_healthy(server, timeout, progress)
    except DevServerError as error:
        server.stop()
        busy = port_in_use_reported(server.log_text(since_start=True))
        if server.proc.returncode not in (None, 0) and busy in (port, inspector_port):
            raise _AddressInUse(busy, error) from error
        raise
    except BaseException:
        server.stop()
        raise
    server.healthy_after = time.monotonic() - started_at
    return server


def _wait_until_healthy(
    server: DevServer, timeout: float, progress: Callable[[float], None] | None = None
) -> None:
    last_report = [0.0]

    def tick(waited: float) -> None:
        if progress is not None and waited - last_report[0] >= 0.5:
            last_report[0] = waited
            progress(time.monotonic() - server.started_at)

    with httpx.Client(timeout=2.0, trust_env=False) as client:
        if wait_until(lambda: _healthy(server, client), timeout, interval=0.1, on_tick=tick):
            return
    raise DevServerError("errors.server_no_health", seconds=round(timeout), log=server.log_path)


def _healthy(server: DevServer, client: httpx.Client) -> bool:
    """True once /health answers; raises DevServerError (with the log tail) if wrangler dev has exited."""
    if server.proc.poll() is not None:
        tail = "\n".join(server.log_text(since_start=True).strip().splitlines()[-8:])
        raise DevServerError("errors.server_exited", code=server.proc.returncode, log=server.log_path, tail=tail)
    try:
        response = client.get(f"{server.base_url}/health")
        answered = response.status_code == 200 and response.json() == {"status": "ok"}
    except (httpx.TransportError, ValueError):
        return False
    # Only our own server counts: another process that took the port after it was picked answers /health too,
    # while our wrangler dev is still on its way to "Address already in use". Ours says it is ready on the port.
    return answered and ready_line(server.port) in server.log_text(since_start=True)


RELOAD_LINE = "Local server updated and ready"  # what wrangler dev logs after it reloaded a changed source file


def ready_line(port: int) -> str:
    """What wrangler dev logs once it serves on the port (`[wrangler:info] Ready on http://127.0.0.1:P`)."""
    return f"Ready on http://{LOOPBACK}:{port}"


@atexit.register
def stop_all_dev_servers() -> None:
    """Exit hook: stop every dev server this process started and has not stopped."""
    for server in list(_RUNNING):
        server.stop()
