"""Start and stop `wrangler dev` (workerd + SQLite on loopback) as one process group."""

from __future__ import annotations

import atexit
import subprocess
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from reservation_lab.config import RunFolder
from reservation_lab.errors import DevServerError
from reservation_lab.ports import LOOPBACK, ensure_port_free, free_port, port_is_free
from reservation_lab.processes import group_members, stop_process_group
from reservation_lab.redact import strip_ansi
from reservation_lab.toolchain import find_toolchain
from reservation_lab.wrangler import wrangler_env

_RUNNING: weakref.WeakSet[DevServer] = weakref.WeakSet()


@dataclass(eq=False)
class DevServer:
    """One running `wrangler dev`; use as a context manager or call stop()."""

    run: RunFolder
    port: int
    log_path: Path
    proc: subprocess.Popen
    watchdog: subprocess.Popen
    started_at: float
    healthy_after: float = 0.0
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

    def log_text(self) -> str:
        return strip_ansi(self.log_path.read_text(errors="replace")) if self.log_path.exists() else ""

    def stop(self) -> None:
        """TERM the whole group, wait until no process and no port is left, KILL as fallback."""
        if self.stopped:
            return
        stop_process_group(self.pgid, self.proc)
        self._release_watchdog()
        deadline = time.monotonic() + 10
        while not port_is_free(self.port) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.stopped = True
        _RUNNING.discard(self)

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


def start_dev_server(
    run: RunFolder,
    port: int = 0,
    timeout: float = 60.0,
    log_name: str = "dev.log",
    config: Path | None = None,
    state_dir: Path | None = None,
    progress: Callable[[float], None] | None = None,
) -> DevServer:
    """Start `wrangler dev` for the run on 127.0.0.1:port (0 = free port) and wait for /health.

    `config` and `state_dir` default to the run's own; pass others to serve another Worker from the run folder.
    `progress`, if given, is called about twice a second with the seconds waited so far for /health.
    """
    toolchain = find_toolchain()
    config = config or run.config
    state_dir = state_dir or run.state_dir
    if not config.exists():
        raise DevServerError(f"{config} does not exist; write the wrangler config first.")
    port = ensure_port_free(port) if port else free_port()
    inspector_port = free_port()
    log_path = run.logs_dir / log_name
    log_path.parent.mkdir(parents=True, exist_ok=True)
    argv = toolchain.wrangler_argv(
        "dev",
        "--config", str(config),
        "--ip", LOOPBACK,
        "--port", str(port),
        "--inspector-port", str(inspector_port),
        "--persist-to", str(state_dir),
        "--show-interactive-dev-session=false",
    )
    started_at = time.monotonic()
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            argv,
            cwd=run.root,
            env=wrangler_env(run.logs_dir),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    watchdog = subprocess.Popen(
        [sys.executable, "-m", "reservation_lab.watchdog", str(proc.pid)],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    server = DevServer(run, port, log_path, proc, watchdog, started_at)
    _RUNNING.add(server)
    try:
        _wait_until_healthy(server, timeout, progress)
    except BaseException:
        server.stop()
        raise
    server.healthy_after = time.monotonic() - started_at
    return server


def _wait_until_healthy(
    server: DevServer, timeout: float, progress: Callable[[float], None] | None = None
) -> None:
    deadline = time.monotonic() + timeout
    reported = time.monotonic()
    with httpx.Client(timeout=2.0, trust_env=False) as client:
        while time.monotonic() < deadline:
            if progress is not None and time.monotonic() - reported >= 0.5:
                reported = time.monotonic()
                progress(reported - server.started_at)
            if server.proc.poll() is not None:
                tail = "\n".join(server.log_text().strip().splitlines()[-8:])
                raise DevServerError(
                    f"wrangler dev exited with code {server.proc.returncode} before it was healthy; "
                    f"see {server.log_path}:\n{tail}"
                )
            try:
                response = client.get(f"{server.base_url}/health")
                if response.status_code == 200 and response.json() == {"status": "ok"}:
                    return
            except (httpx.TransportError, ValueError):
                pass
            time.sleep(0.1)
    raise DevServerError(f"wrangler dev did not answer /health within {timeout:.0f} s; see {server.log_path}.")


@atexit.register
def stop_all_dev_servers() -> None:
    """Exit hook: stop every dev server this process started and has not stopped."""
    for server in list(_RUNNING):
        server.stop()
