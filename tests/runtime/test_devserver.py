"""The dev server's lifecycle: healthy start, complete stop, busy ports, restarts, a killed parent."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import textwrap
import time

import httpx

from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import DevServerError, PortBusyError
from reservation_lab.runtime.devserver import start_dev_server
from reservation_lab.runtime.ports import LOOPBACK, port_is_free
from reservation_lab.runtime.processes import group_members, is_gone
from tests.support import raises_key


def test_start_answers_health_and_stop_leaves_nothing(run_folder: RunFolder) -> None:
    server = start_dev_server(run_folder)
    try:
        assert httpx.get(f"{server.base_url}/health", trust_env=False).json() == {"status": "ok"}
        members = server.processes()
        assert len(members) >= 2, "expected wrangler's node and workerd in the group"
        assert (run_folder.logs_dir / "dev.log").exists()
    finally:
        server.stop()
    assert server.processes() == []
    assert all(is_gone(pid) for pid in members)
    assert port_is_free(server.port)
    assert server.watchdog.poll() == 0


def test_busy_port_is_refused_and_nothing_starts(run_folder: RunFolder) -> None:
    with socket.socket() as blocker:
        blocker.bind((LOOPBACK, 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        with raises_key("errors.port_busy", PortBusyError, port=port):
            start_dev_server(run_folder, port=port)
    assert not (run_folder.logs_dir / "dev.log").exists()


def test_missing_config_is_a_clear_error(run_folder: RunFolder) -> None:
    run_folder.config.unlink()
    with raises_key("errors.config_missing", DevServerError, path=run_folder.config):
        start_dev_server(run_folder)


def test_broken_worker_fails_fast_with_the_log_tail(run_folder: RunFolder) -> None:
    (run_folder.root / "src" / "index.js").write_text("export default { fetch( { }\n")
    started = time.monotonic()
    with raises_key("errors.server_exited", DevServerError):
        start_dev_server(run_folder, timeout=60)
    assert time.monotonic() - started < 30


def test_restart_keeps_the_durable_state(dev_server_factory, run_folder: RunFolder) -> None:
    first = dev_server_factory()
    with httpx.Client(base_url=first.base_url, trust_env=False) as http:
        assert http.post("/workshops/keep/reservations", json={"requestId": "req-1", "seats": 3}).status_code == 201
    first.stop()
    second = dev_server_factory(log_name="dev-restarted.log")
    with httpx.Client(base_url=second.base_url, trust_env=False) as http:
        status = http.get("/workshops/keep/status").json()
    assert status["reserved"] == 3
    assert status["acceptedRequests"] == 1


def test_two_servers_run_side_by_side(dev_server_factory, tmp_path) -> None:
    from reservation_lab.domain.config import write_wrangler_config
    from reservation_lab.domain.runs import create_run_folder

    runs = [create_run_folder(tmp_path / f"r{i}") for i in range(2)]
    for run in runs:
        write_wrangler_config(run)
    servers = [dev_server_factory(run) for run in runs]
    assert servers[0].port != servers[1].port
    with httpx.Client(trust_env=False) as http:
        http.post(f"{servers[0].base_url}/workshops/a/reservations", json={"requestId": "req-1", "seats": 2})
        assert http.get(f"{servers[1].base_url}/workshops/a/status").json()["reserved"] == 0


def test_watchdog_ends_the_group_when_the_parent_is_killed(run_folder: RunFolder) -> None:
    script = textwrap.dedent(
        f"""
        import sys, time
        from reservation_lab.domain.runs import RunFolder
        from pathlib import Path
        from reservation_lab.runtime.devserver import start_dev_server
        server = start_dev_server(RunFolder(Path({str(run_folder.root)!r}), {run_folder.name!r}))
        print(server.pgid, server.port, flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        line = parent.stdout.readline()
        pgid, port = map(int, line.split())
        assert group_members(pgid), "the dev server should be running"
        parent.send_signal(signal.SIGKILL)  # no atexit, no finally: only the watchdog can clean up
        parent.wait()
        deadline = time.monotonic() + 20
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert group_members(pgid) == []
        while not port_is_free(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert port_is_free(port)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
