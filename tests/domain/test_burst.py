"""Bursts against a real loopback HTTP server: all in flight together, retried safely with the same requestId."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from reservation_lab.domain.burst import RETRY_STATUSES, request_ids, send_burst, send_burst_sync
from reservation_lab.errors import LabError
from tests.support import raises_key

WORKSHOP = "launch-day"
PATH = f"/workshops/{WORKSHOP}/reservations"

Behaviour = Callable[["Handler", dict[str, Any], int], None]


class Server(ThreadingHTTPServer):
    """A threaded loopback server that records every request body and hands it to a behaviour."""

    daemon_threads = True
    request_queue_size = 128  # a burst connects all at once; the default backlog of 5 could delay SYNs

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.behaviour = behaviour
        self.lock = threading.Lock()
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.attempts: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0

    def record(self, path: str, payload: dict[str, Any]) -> int:
        """Remember the request; return which attempt of its requestId this is (1-based)."""
        with self.lock:
            self.received.append((path, payload))
            self.attempts[payload.get("requestId")] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self.attempts[payload.get("requestId")]

    def done(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def bodies_of(self, request_id: str) -> list[dict[str, Any]]:
        with self.lock:
            return [body for _, body in self.received if body.get("requestId") == request_id]


class Handler(BaseHTTPRequestHandler):
    """Reads the JSON body, records it, and lets the server's behaviour answer (or not)."""

    server: Server

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        payload = json.loads(raw)
        attempt = self.server.record(self.path, payload)
        try:
            self.server.behaviour(self, payload, attempt)
        finally:
            self.server.done()

    def reply(self, code: int, body: dict[str, Any] | str) -> None:
        data = (json.dumps(body) if isinstance(body, dict) else body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json" if isinstance(body, dict) else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""


def accepted(payload: dict[str, Any], replayed: bool = False) -> dict[str, Any]:
    """The Worker's answer shape for an accepted request."""
    return {"requestId": payload["requestId"], "seats": payload["seats"], "status": "accepted", "capacity": 4,
            "reserved": 1, "replayed": replayed}


def accept_all(handler: Handler, payload: dict[str, Any], attempt: int) -> None:
    handler.reply(201, accepted(payload))


@dataclass
class Loopback:
    """Starts servers in threads; shuts every one down at teardown."""

    servers: list[tuple[Server, threading.Thread]] = field(default_factory=list)

    def serve(self, behaviour: Behaviour) -> Server:
        server = Server(behaviour)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        self.servers.append((server, thread))
        return server

    def close(self) -> None:
        for server, thread in self.servers:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)


def url_of(server: Server) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    servers = Loopback()
    yield servers
    servers.close()


# --- (a) all requests in flight together ------------------------------------------------------


def barrier_behaviour(parties: int, timeout: float) -> Behaviour:
    """Answer 201 only once `parties` requests are inside the server at the same time, else 418 (not retried)."""
    barrier = threading.Barrier(parties)

    def behave(handler: Handler, payload: dict[str, Any], attempt: int) -> None:
        try:
            barrier.wait(timeout=timeout)
        except threading.BrokenBarrierError:
            handler.reply(418, {"error": "not_concurrent"})
        else:
            handler.reply(201, accepted(payload))

    return behave


@pytest.mark.parametrize("size", [2, 10, 25])
def test_all_requests_are_in_flight_together(loopback: Loopback, size: int) -> None:
    """Each request is held at a server-side barrier of N: the burst completes only if all N are in flight at once."""
    server = loopback.serve(barrier_behaviour(size, timeout=5.0))
    decisions = send_burst_sync(url_of(server), WORKSHOP, size)
    assert [d.status_code for d in decisions] == [201] * size, [d.body for d in decisions]
    assert all(len(d.attempts) == 1 for d in decisions)
    assert server.max_in_flight == size
    assert sorted(body["requestId"] for _, body in server.received) == sorted(request_ids(size))
    assert {path for path, _ in server.received} == {PATH}


def test_the_barrier_server_detects_one_at_a_time_requests(loopback: Loopback) -> None:
    """Control: requests sent one after another never meet at the barrier, so the check above is meaningful."""
    server = loopback.serve(barrier_behaviour(2, timeout=0.3))
    with httpx.Client(base_url=url_of(server), trust_env=False, timeout=5) as client:
        codes = [client.post(PATH, json={"requestId": f"request-{i}", "seats": 1}).status_code for i in (1, 2)]
    assert codes == [418, 418]


# --- (b)-(d) retries --------------------------------------------------------------------------


def test_500_then_201_is_retried_with_the_same_request_id(loopback: Loopback) -> None:
    """A 500 on the first attempt is retried; the retry body is identical (same requestId and seats)."""

    def behave(handler: Handler, payload: dict[str, Any], attempt: int) -> None:
        if attempt == 1:
            handler.reply(500, {"error": "internal_error"})
        else:
            handler.reply(201, accepted(payload, replayed=True))

    server = loopback.serve(behave)
    decisions = send_burst_sync(url_of(server), WORKSHOP, 5, seats=[1, 2, 1, 3, 1])
    for d in decisions:
        assert d.status_code == 201
        assert d.status == "accepted"
        assert [a.status_code for a in d.attempts] == [500, 201]
        assert d.attempts[1].sent >= d.attempts[0].answered + 0.09, "the retry came without backoff"
        bodies = server.bodies_of(d.request_id)
        assert bodies == [{"requestId": d.request_id, "seats": d.seats}] * 2
    assert sum(server.attempts.values()) == 10


def test_a_dropped_connection_is_retried(loopback: Loopback) -> None:
    """The server reads the request and closes without answering: a transport error, then a retry that succeeds."""

    def behave(handler: Handler, payload: dict[str, Any], attempt: int) -> None:
        if attempt == 1:
            handler.close_connection = True  # return without writing a byte
        else:
            handler.reply(201, accepted(payload))

    server = loopback.serve(behave)
    decisions = send_burst_sync(url_of(server), WORKSHOP, 3)
    for d in decisions:
        assert d.status_code == 201
        assert len(d.attempts) == 2
        first, second = d.attempts
        assert first.status_code is None
        assert first.error == "RemoteProtocolError"
        assert second.status_code == 201 and second.error is None
        assert [body["requestId"] for body in server.bodies_of(d.request_id)] == [d.request_id] * 2


@pytest.mark.parametrize("code", sorted(RETRY_STATUSES))
def test_a_server_that_always_fails_is_tried_max_attempts_times(loopback: Loopback, code: int) -> None:
    """Always 5xx: the decision keeps the last status and body, after exactly max_attempts attempts."""

    def behave(handler: Handler, payload: dict[str, Any], attempt: int) -> None:
        handler.reply(code, {"error": "unavailable", "attempt": attempt})

    server = loopback.serve(behave)
    decisions = send_burst_sync(url_of(server), WORKSHOP, 2, max_attempts=3)
    for d in decisions:
        assert d.status_code == code
        assert not d.decided
        assert [a.status_code for a in d.attempts] == [code] * 3
        assert d.body == {"error": "unavailable", "attempt": 3}
        assert server.attempts[d.request_id] == 3


@pytest.mark.parametrize(("code", "status"), [(201, "accepted"), (409, "rejected"), (400, None), (404, None)])
def test_decisions_and_client_errors_are_not_retried(loopback: Loopback, code: int, status: str | None) -> None:
    """201, 409 and 4xx are final: one attempt each."""

    def behave(handler: Handler, payload: dict[str, Any], attempt: int) -> None:
        handler.reply(code, {**accepted(payload), "status": status} if status else {"error": "invalid_request"})

    server = loopback.serve(behave)
    decisions = send_burst_sync(url_of(server), WORKSHOP, 3)
    assert all(d.status_code == code and len(d.attempts) == 1 and d.status == status for d in decisions)
    assert all(d.decided == (code in (201, 409)) for d in decisions)
    assert sum(server.attempts.values()) == 3


def test_a_non_json_answer_is_kept_as_text(loopback: Loopback) -> None:
    """A body that is not JSON becomes {'error': 'non_json_response', 'text': ...}."""

    def behave(handler: Handler, payload: dict[str, Any], attempt: int) -> None:
        handler.reply(201, "<html>proxy page</html>")

    server = loopback.serve(behave)
    (d,) = send_burst_sync(url_of(server), WORKSHOP, 1)
    assert d.status_code == 201
    assert d.body == {"error": "non_json_response", "text": "<html>proxy page</html>"}
    assert d.status is None


def test_nothing_listening_gives_undecided_requests() -> None:
    """A refused connection is retried, then reported as undecided with the error name (no exception)."""
    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as closed:
        port = closed.server_address[1]
    (d,) = send_burst_sync(f"http://127.0.0.1:{port}", WORKSHOP, 1, max_attempts=2)
    assert d.status_code is None
    assert not d.decided
    assert [a.error for a in d.attempts] == ["ConnectError", "ConnectError"]


# --- (e)-(g) API ------------------------------------------------------------------------------


def test_send_burst_sync_refuses_a_running_event_loop() -> None:
    """Inside a running loop (a notebook kernel) the sync wrapper says to await send_burst instead."""

    async def inside_a_loop() -> None:
        send_burst_sync("http://127.0.0.1:9", WORKSHOP, 1)

    with raises_key("errors.loop_running", LabError, hint="send_burst"):
        asyncio.run(inside_a_loop())


def test_send_burst_can_be_awaited(loopback: Loopback) -> None:
    """The async API works inside a running loop, as in a notebook cell."""
    server = loopback.serve(accept_all)

    async def cell() -> list[int | None]:
        return [d.status_code for d in await send_burst(url_of(server), WORKSHOP, 4)]

    assert asyncio.run(cell()) == [201] * 4


def test_mismatched_seat_list_is_refused(loopback: Loopback) -> None:
    """One seat count per request, or a LabError before anything is sent."""
    server = loopback.serve(accept_all)
    with raises_key("errors.seat_counts", LabError, requests=3, counts=2):
        send_burst_sync(url_of(server), WORKSHOP, 3, seats=[1, 2])
    with raises_key("errors.seat_counts", LabError, requests=2, counts=3):
        send_burst_sync(url_of(server), WORKSHOP, ids=["a-1", "a-2"], seats=[1, 1, 1])
    assert server.received == []


def test_request_ids_naming() -> None:
    """request-1 … request-N, with an optional prefix."""
    assert request_ids(3) == ["request-1", "request-2", "request-3"]
    assert request_ids(2, prefix="second") == ["second-1", "second-2"]
    assert request_ids(0) == []
    assert len(set(request_ids(100))) == 100


def test_burst_sends_the_named_ids_and_seats(loopback: Loopback) -> None:
    """Decisions come back in request order; the server saw exactly the ids, seats and route asked for."""
    server = loopback.serve(accept_all)
    decisions = send_burst_sync(url_of(server) + "/", WORKSHOP, 3, seats=[2, 1, 3], prefix="burst")
    assert [(d.request_id, d.seats) for d in decisions] == [("burst-1", 2), ("burst-2", 1), ("burst-3", 3)]
    assert sorted((body["requestId"], body["seats"]) for _, body in server.received) == [
        ("burst-1", 2), ("burst-2", 1), ("burst-3", 3)]
    assert {path for path, _ in server.received} == {PATH}, "a trailing slash in base_url must not double up"


def test_explicit_ids_are_used(loopback: Loopback) -> None:
    """ids= overrides size and prefix."""
    server = loopback.serve(accept_all)
    decisions = send_burst_sync(url_of(server), WORKSHOP, 10, ids=["x-1", "y-7"])
    assert [d.request_id for d in decisions] == ["x-1", "y-7"]
    assert sorted(body["requestId"] for _, body in server.received) == ["x-1", "y-7"]


def test_an_empty_ids_list_sends_nothing(loopback: Loopback) -> None:
    """ids=[] means no request: an empty result (or a LabError), never a default burst."""
    server = loopback.serve(accept_all)
    with contextlib.suppress(LabError):
        assert send_burst_sync(url_of(server), WORKSHOP, ids=[]) == []
    assert server.received == []


def test_a_burst_of_zero_is_empty_or_refused(loopback: Loopback) -> None:
    """size=0: an empty result or a LabError that says why."""
    server = loopback.serve(accept_all)
    with contextlib.suppress(LabError):
        assert send_burst_sync(url_of(server), WORKSHOP, 0) == []
    assert server.received == []
