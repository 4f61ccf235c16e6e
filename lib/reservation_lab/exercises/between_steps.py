"""The loopback server a transfer Worker's betweenSteps() calls (BETWEEN_STEPS in the grading folder's .dev.vars).

It answers at once, except for a transfer armed to fail there: then it restarts the grading server, which ends the
Worker's call and every request in flight, as a crash between a transfer's two steps would. Each armed transfer
restarts it once (its retry passes through), so a trial's restarts are bounded by its armed transfers; one restart
runs at a time, and an armed transfer that arrives while one runs ends with it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from reservation_lab.errors import LabError
from reservation_lab.exercises.loopback import LoopbackServer, QuietHandler

SETTLE_SECONDS = 120.0  # a restart of wrangler dev on a loaded machine, with room to spare


class BetweenSteps:
    """The hook server: `restart()` restarts the grading server (and returns once it answers again)."""

    def __init__(self, restart: Callable[[], object]) -> None:
        self._restart = restart
        self._lock = threading.Lock()
        self._armed: set[str] = set()
        self._restarts: list[threading.Thread] = []  # begun since the last settle()
        self._current: threading.Thread | None = None  # the last restart begun
        self._failed: BaseException | None = None  # what a restart raised, for settle() to raise
        self.calls: list[str] = []  # the transferIds that reached the hook in this trial, in order
        hook = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                hook._called(parse_qs(urlsplit(self.path).query).get("transfer", [""])[0], self)

        self._server = LoopbackServer(Handler, "between-steps").start()

    @property
    def url(self) -> str:
        return f"{self._server.url}/"

    def arm(self, transfer_ids: set[str]) -> None:
        """Restart the server when one of these transfers first reaches the hook."""
        with self._lock:
            self._armed = set(transfer_ids)

    def settle(self) -> int:
        """Wait for the restarts begun since the last settle() to end; how many there were. A restart that failed,
        or did not end within SETTLE_SECONDS, raises here: the grade must not go on against a dead server."""
        with self._lock:
            begun, self._restarts = self._restarts, []
        for thread in begun:
            thread.join(SETTLE_SECONDS)
            if thread.is_alive():
                raise LabError("exercises.restart_hung", seconds=round(SETTLE_SECONDS))
        with self._lock:
            failed, self._failed = self._failed, None
        if failed is not None:
            raise failed
        return len(begun)

    def reset(self) -> None:
        """Forget the armed transfers that did not reach the hook, and the calls (a trial's end)."""
        with self._lock:
            self._armed = set()
            self.calls = []

    def _restart_once(self) -> None:
        try:
            self._restart()
        except BaseException as error:  # noqa: BLE001 - kept for settle(), which raises it on the grader's thread
            with self._lock:
                self._failed = error

    def _called(self, transfer_id: str, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.calls.append(transfer_id)
            crash = transfer_id in self._armed
            self._armed.discard(transfer_id)
            if crash and (self._current is None or not self._current.is_alive()):
                self._current = threading.Thread(target=self._restart_once, name=f"restart-{transfer_id}",
                                                 daemon=True)
                self._restarts.append(self._current)
                self._current.start()
            # an armed transfer that arrives during a restart ends with that one (one restart at a time)
            running = self._current if crash else None
        if running is not None:
            running.join(SETTLE_SECONDS)  # the Worker's call ends with its server; the answer goes nowhere
        try:
            handler.send_response(204)
            handler.end_headers()
        except OSError:
            pass

    def close(self) -> None:
        try:
            self.settle()
        finally:
            self._server.close()
