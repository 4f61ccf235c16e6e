"""The grader's own loopback services' HTTP server (the lossy network, the between-steps hook, the check service):
a free loopback port, a thread of its own, a backlog for a whole round at once, a quick close."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from reservation_lab.runtime.ports import LOOPBACK

POLL_SECONDS = 0.05  # how often serve_forever looks for shutdown(): close() waits up to this (http.server: 0.5 s)


class QuietHandler(BaseHTTPRequestHandler):
    """A grading service's request handler: it logs nothing (a grade's output is the learner's)."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


class LoopbackServer(ThreadingHTTPServer):
    """Serves `handler` on a free loopback port from start() until close(). A round's requests reach it at once (up
    to 16 checks, 8 transfers between their steps, a dozen client calls): http.server's backlog of 5 is raised."""

    request_queue_size = 128
    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler], name: str) -> None:
        super().__init__((LOOPBACK, 0), handler)
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, name=name,
                                       daemon=True)

    def start(self) -> LoopbackServer:
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}"

    def close(self) -> None:
        """Stop accepting and serving (requests in flight finish on their own threads)."""
        self.shutdown()
        self.server_close()
        self.thread.join(10)
