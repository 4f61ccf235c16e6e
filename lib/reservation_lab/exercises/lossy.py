"""An unreliable network between a learner's client and the real Worker: a loopback HTTP proxy that loses, fails,
delays or duplicates requests and answers as a plan says, and logs what reached the Worker and what it answered.

Each client call sends its attempts with the header `x-lab-call: <token>:<n>` (the token is this network's: a request
of an earlier network's client that still runs is refused, not counted); the plan gives call n's k-th attempt its
fault (none once the plan's faults are used up; `refuse` for ever for a call the plan marks `ENDLESS`). The faults,
as a real network or gateway shows them:
`drop_request` closes the connection before the Worker sees the request; `drop_answer` lets the Worker decide,
then closes the connection without an answer (the answer lost after its commit); `gateway_error` lets the Worker
decide and answers 502 instead; `refuse` answers 503 without asking the Worker; `duplicate` sends the request to the
Worker twice at once and answers with the second decision's answer (a replay, when the Worker keeps its decisions);
`delay` holds the request DELAY seconds before it goes on; `stall` (the grader's final workload only) lets the
Worker decide and then stays silent, neither answering nor closing, until the client gives up (its timeout) or
STALL seconds pass. Every answer carries `Connection: close`, so a lost answer never leaves a half-used connection
behind.
"""

from __future__ import annotations

import json
import secrets
import select
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx

from reservation_lab.exercises.loopback import LoopbackServer, QuietHandler

FAULTS = ("drop_request", "drop_answer", "gateway_error", "refuse", "duplicate", "delay")  # shrinks to the first
DELAY = 0.3  # seconds a delayed request waits before it goes on
STALL = "stall"  # not drawn by the search (each would cost a client its timeout): the final workload's
STALL_SECONDS = 35.0  # longer than a call may take (clients.CALL_SECONDS): a client without a timeout hangs
CALL_HEADER = "x-lab-call"
ENDLESS = "endless"  # the last entry of a call's faults: every later attempt is refused too (no decision can come)
FORWARD_TIMEOUT = 15.0  # seconds the proxy waits for the Worker (as the Worker exercises' judge does)


@dataclass
class Attempt:
    """One request a client sent through the network: what the plan did to it and what the Worker answered."""

    call: int
    number: int  # 1 for the call's first attempt
    fault: str  # "" when none
    method: str
    path: str
    request_id: str | None  # from the JSON body, when it has one
    arrived: float  # time.monotonic() at the proxy
    ended: float = 0.0  # when the client got its answer, or its connection was closed
    answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # the Worker's (code, JSON) answers


class LossyNetwork:
    """The proxy on a free loopback port in front of `worker_url`, with `plan[call]` the faults of a call's
    attempts; `attempts` logs every attempt in arrival order. A context manager: closing stops it."""

    def __init__(self, worker_url: str, plan: Mapping[int, tuple[str, ...]]) -> None:
        self.worker_url = worker_url
        self.plan = dict(plan)
        self.attempts: list[Attempt] = []
        self.errors: list[str] = []  # the proxy's own failures (none expected; the tests assert so)
        self.token = secrets.token_hex(4)
        self._handlers: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._worker = httpx.Client(base_url=worker_url, timeout=FORWARD_TIMEOUT, trust_env=False)
        self._duplicates = ThreadPoolExecutor(10)  # a duplicate sends twice at once; a round has few calls
        self._server = _QuietServer(_handler(self), "lossy-network")
        self._server.network = self
        self._server.start()

    @property
    def url(self) -> str:
        return self._server.url

    def of_call(self, call: int) -> list[Attempt]:
        """The call's attempts, in the order they arrived."""
        with self._lock:
            return [attempt for attempt in self.attempts if attempt.call == call]

    def _arrive(self, call: int, method: str, path: str, body: bytes) -> Attempt:
        with self._lock:
            number = sum(1 for attempt in self.attempts if attempt.call == call) + 1
            faults = self.plan.get(call, ())
            fault = faults[number - 1] if number <= len(faults) else ""
            if fault == ENDLESS or (not fault and faults and faults[-1] == ENDLESS):
                fault = "refuse"
            attempt = Attempt(call, number, fault, method, path,
                              _request_id(body), time.monotonic())
            self.attempts.append(attempt)
        return attempt

    def _forward(self, attempt: Attempt, body: bytes, content_type: str) -> tuple[int, bytes]:
        """Send the attempt to the Worker (twice at once for `duplicate`); the answer the client is to get."""
        def once() -> httpx.Response:
            return self._worker.request(attempt.method, attempt.path, content=body,
                                        headers={"content-type": content_type} if content_type else {})

        if attempt.fault == "delay":
            time.sleep(DELAY)
        replies = list(self._duplicates.map(lambda _: once(), range(2))) if attempt.fault == "duplicate" else [once()]
        replies.sort(key=lambda reply: bool(_json(reply).get("replayed")))  # the decision first, then its replay
        for reply in replies:
            attempt.answers.append((reply.status_code, _json(reply)))
        return replies[-1].status_code, replies[-1].content  # a duplicate's client gets the second: the replay

    def call_header(self, call: int) -> str:
        """The header value of call `call`'s requests through this network."""
        return f"{self.token}:{call}"

    def close(self) -> None:
        """Stop accepting, let the requests in flight finish (each is bounded by FORWARD_TIMEOUT and DELAY), then
        close the connection to the Worker: no attempt in the log is cut short by the close."""
        self._server.close()
        with self._lock:
            handlers = list(self._handlers)
        for handler in handlers:
            handler.join(timeout=FORWARD_TIMEOUT + DELAY)  # a stalled one ends when its client closes (below)
        self._duplicates.shutdown(wait=True)
        self._worker.close()

    def __enter__(self) -> LossyNetwork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _QuietServer(LoopbackServer):
    network: LossyNetwork

    def process_request(self, request: Any, client_address: Any) -> None:
        """As ThreadingHTTPServer, with each handler thread known to the network (close() waits for them)."""
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address), daemon=True)
        with self.network._lock:
            self.network._handlers.append(thread)
        thread.start()

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that gave up on an answer closed its end (nothing to say in the learner's notebook); anything
        else is the proxy's own failure, kept in `errors`."""
        error = sys.exc_info()[1]
        if not isinstance(error, (ConnectionError, TimeoutError)):
            self.network.errors.append(f"{type(error).__name__}: {error}")


def _request_id(body: bytes) -> str | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    request_id = value.get("requestId") if isinstance(value, dict) else None
    return request_id if isinstance(request_id, str) else None


def _json(reply: httpx.Response) -> dict[str, Any]:
    try:
        value = reply.json()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _handler(network: LossyNetwork) -> type[BaseHTTPRequestHandler]:
    class Handler(QuietHandler):  # the log is `network.attempts`, not stderr
        protocol_version = "HTTP/1.1"

        timeout = FORWARD_TIMEOUT  # a client that stops sending mid-request does not hold a thread for ever

        def _any(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            token, _, number = self.headers.get(CALL_HEADER, "").partition(":")
            if token and token != network.token:  # an earlier network's client, still running: not this trial's
                self.close_connection = True
                self._reply(410, b"410 Gone\n", "text/plain")
                return
            call = int(number) if number.isdigit() else 0
            attempt = network._arrive(call, self.command, self.path, body)
            try:
                self._answer(attempt, body)
            finally:
                attempt.ended = time.monotonic()
                self.close_connection = True

        def _answer(self, attempt: Attempt, body: bytes) -> None:
            if attempt.fault == "drop_request":
                return  # closed without a word: the Worker never saw it
            if attempt.fault == "refuse":
                self._reply(503, b"503 Service Unavailable\n", "text/plain")
                return
            try:
                code, content = network._forward(attempt, body, self.headers.get("content-type", ""))
            except httpx.HTTPError:
                self._reply(504, b"504 Gateway Timeout\n", "text/plain")
                return
            if attempt.fault == "drop_answer":
                return  # decided, then closed without the answer
            if attempt.fault == STALL:  # decided, then silence until the client closes its end
                select.select([self.connection], [], [], STALL_SECONDS)
                return
            if attempt.fault == "gateway_error":
                self._reply(502, b"502 Bad Gateway\n", "text/plain")
                return
            self._reply(code, content, "application/json")

        def _reply(self, code: int, content: bytes, content_type: str) -> None:
            self.send_response(code)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(content)))
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_DELETE = _any

    return Handler
