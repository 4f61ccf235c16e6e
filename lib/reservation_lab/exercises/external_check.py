"""The loopback check service the naive exercise's externalCheck() calls (EXTERNAL_CHECK in the grading folder's
.dev.vars; unset in the lab, where a timer stands in for it).

Each check is answered after 10-19 ms, as the lab's timer waits; the first check of a requestId the trial told it to
fail is answered 503 instead (a payment or fraud service that is down). The Worker's call then throws, the front
Worker answers 503 check_failed, and nothing may have changed; `take_failed()` tells the judge which checks failed.
"""

from __future__ import annotations

import json
import threading
import time

from reservation_lab.exercises.loopback import LoopbackServer, QuietHandler


class ExternalCheck:
    """The check service, on a free loopback port, on a thread of its own until close()."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._to_fail: set[str] = set()
        self._failed: set[str] = set()
        service = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length") or 0)
                try:
                    check = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    check = {}
                request_id, seats = str(check.get("requestId", "")), check.get("seats", 0)
                time.sleep((10 + (len(request_id) * 7 + (seats if type(seats) is int else 0)) % 10) / 1000)
                code = 503 if service._fails(request_id) else 200
                try:
                    self.send_response(code)
                    self.send_header("content-length", "0")
                    self.end_headers()
                except OSError:
                    pass

        self._server = LoopbackServer(Handler, "external-check").start()

    @property
    def url(self) -> str:
        return f"{self._server.url}/check"

    def fail_first(self, request_ids: set[str]) -> None:
        """Fail the next check of each of these requestIds (once each: a retry's check passes)."""
        with self._lock:
            self._to_fail |= request_ids

    def take_failed(self) -> set[str]:
        """The requestIds whose check failed since the last call (and forget the ones still to fail)."""
        with self._lock:
            failed, self._failed, self._to_fail = self._failed, set(), set()
        return failed

    def _fails(self, request_id: str) -> bool:
        with self._lock:
            if request_id not in self._to_fail:
                return False
            self._to_fail.discard(request_id)
            self._failed.add(request_id)
            return True

    def close(self) -> None:
        self._server.close()
