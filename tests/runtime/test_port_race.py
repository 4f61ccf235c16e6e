"""The port race: a picked port taken before `wrangler dev` binds it is replaced; a chosen one never is."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.errors import DevServerError, PortBusyError
from reservation_lab.runtime import devserver
from reservation_lab.runtime.devserver import DevServer, start_dev_server
from reservation_lab.runtime.ports import LOOPBACK, free_port, port_is_free
from reservation_lab.runtime.processes import group_members, processes_mentioning
from tests.support import raises_key


@pytest.fixture
def occupied() -> Iterator[list[socket.socket]]:
    """Listening sockets a test opened to steal ports; closed afterwards."""
    sockets: list[socket.socket] = []
    yield sockets
    for sock in sockets:
        sock.close()


def hold_a_port(sockets: list[socket.socket]) -> int:
    """A loopback port this test holds (bound and listening) from the moment it exists: nobody else can take it.

    Picking a free port first and binding it afterwards would race the parallel test workers: a port another
    process holds for a moment (its own free-port probe) looks taken, then is free again when wrangler binds it.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((LOOPBACK, 0))
    sock.listen()
    sockets.append(sock)
    return sock.getsockname()[1]


def stealing_picker(steal: Callable[[int], bool], sockets: list[socket.socket]) -> tuple[Callable[[], int], list[int]]:
    """A free_port whose n-th pick is a port already taken by another process (steal(n) says which)."""
    picks: list[int] = []

    def pick() -> int:
        port = hold_a_port(sockets) if steal(len(picks) + 1) else free_port()
        picks.append(port)
        return port

    return pick, picks


def assert_healthy_then_stop(server: DevServer) -> None:
    try:
        assert httpx.get(f"{server.base_url}/health", trust_env=False).json() == {"status": "ok"}
    finally:
        server.stop()
    assert group_members(server.pgid) == [] and port_is_free(server.port)


def test_a_picked_port_taken_before_start_is_replaced(run_folder: RunFolder, occupied, monkeypatch) -> None:
    pick, picks = stealing_picker(lambda n: n == 1, occupied)
    monkeypatch.setattr(devserver, "free_port", pick)
    server = start_dev_server(run_folder)
    stolen = picks[0]
    assert server.port != stolen and server.port_tries == 2
    assert f"Address already in use ({LOOPBACK}:{stolen})" in server.log_text()
    assert_healthy_then_stop(server)


def test_a_taken_inspector_port_is_replaced_even_on_a_chosen_port(run_folder: RunFolder, occupied, monkeypatch) -> None:
    chosen = free_port()
    pick, picks = stealing_picker(lambda n: n == 1, occupied)  # with a chosen port the first pick is the inspector's
    monkeypatch.setattr(devserver, "free_port", pick)
    server = start_dev_server(run_folder, port=chosen)
    assert server.port == chosen and server.port_tries == 2
    assert f"Address already in use ({LOOPBACK}:{picks[0]})" in server.log_text()
    assert_healthy_then_stop(server)


def test_a_chosen_port_taken_before_start_is_never_replaced(run_folder: RunFolder, occupied, monkeypatch) -> None:
    chosen = hold_a_port(occupied)  # taken before wrangler binds it ...
    monkeypatch.setattr(devserver, "ensure_port_free", lambda port: port)  # ... though free when it was checked
    with raises_key("errors.port_busy", PortBusyError, port=chosen):
        start_dev_server(run_folder, port=chosen)
    assert processes_mentioning(str(run_folder.root)) == []


def test_every_try_taken_says_so_and_leaves_nothing(run_folder: RunFolder, occupied, monkeypatch) -> None:
    pick, picks = stealing_picker(lambda n: n % 2 == 1, occupied)  # every listening port, never the inspector
    monkeypatch.setattr(devserver, "free_port", pick)
    with raises_key("errors.ports_all_taken", DevServerError, tries=3) as raised:
        start_dev_server(run_folder)
    stolen = picks[0::2]
    assert len(stolen) == devserver.PORT_TRIES
    assert all(str(port) in str(raised.value) for port in stolen)
    assert processes_mentioning(str(run_folder.root)) == []


def test_other_start_failures_are_not_retried(run_folder: RunFolder, monkeypatch) -> None:
    """A broken Worker fails once, with its log tail; no port was taken, so nothing is retried."""
    (run_folder.root / "src" / "index.js").write_text("export default { fetch( { }\n")
    picks: list[int] = []
    monkeypatch.setattr(devserver, "free_port", lambda: picks.append(free_port()) or picks[-1])
    with raises_key("errors.server_exited", DevServerError):
        start_dev_server(run_folder)
    assert len(picks) == 2  # one listening port and one inspector port: one start


@pytest.mark.parametrize("count", [3, pytest.param(6, marks=pytest.mark.stress)])
def test_dev_servers_started_at_once(tmp_path: Path, count: int) -> None:
    """Three at once in `./lab test` (each start picks two ports: six picks racing), six under `-m stress`."""
    runs = [create_run_folder(tmp_path / f"run-{i}") for i in range(count)]
    for run in runs:
        write_wrangler_config(run)
    with ThreadPoolExecutor(len(runs)) as pool:
        futures = [pool.submit(start_dev_server, run, timeout=120) for run in runs]
        servers = []
        errors = []
        for future in futures:
            try:
                servers.append(future.result())
            except Exception as error:  # noqa: BLE001 - every start is collected before asserting
                errors.append(error)
    try:
        assert errors == []
        assert len({server.port for server in servers}) == len(runs)
        with httpx.Client(trust_env=False) as http:
            for index, server in enumerate(servers):
                reply = http.post(f"{server.base_url}/workshops/w/reservations", json={"requestId": f"req-{index}",
                                                                                       "seats": 1})
                assert reply.status_code == 201 and reply.json()["reserved"] == 1, "each server has its own state"
    finally:
        for server in servers:
            server.stop()
    assert all(group_members(server.pgid) == [] for server in servers)


def test_an_impostor_answering_health_on_the_stolen_port_is_not_taken_for_ours(run_folder: RunFolder,
                                                                                monkeypatch) -> None:
    """Another process that takes the picked port and answers /health (as another lab run would) is not mistaken
    for our server: ours fails to bind, and the start moves to a fresh port."""
    import http.server
    import threading

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            body = b'{"status":"ok"}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    impostors: list[http.server.ThreadingHTTPServer] = []

    def pick() -> int:
        port = free_port()
        if not impostors:
            impostor = http.server.ThreadingHTTPServer((LOOPBACK, port), Health)
            threading.Thread(target=impostor.serve_forever, daemon=True).start()
            impostors.append(impostor)
        return port

    monkeypatch.setattr(devserver, "free_port", pick)
    try:
        server = start_dev_server(run_folder)
        stolen = impostors[0].server_address[1]
        assert server.port != stolen and server.port_tries == 2
        status = httpx.get(f"{server.base_url}/workshops/w/status", trust_env=False).json()
        assert status["capacity"] == 4, "the server found is the lab's Worker, not the impostor"
        assert_healthy_then_stop(server)
    finally:
        for impostor in impostors:
            impostor.shutdown()
            impostor.server_close()
