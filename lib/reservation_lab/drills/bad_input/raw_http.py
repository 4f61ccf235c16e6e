"""A raw HTTP/1.1 client: each request on its own loopback connection, written to the socket as it is (nothing
normalises the path, the body or the framing), and sent again only when wrangler dev's proxy dropped it."""

from __future__ import annotations

import http.client
import math
import select
import socket

from reservation_lab.drills.bad_input.wire import Answer, RawRequest
from reservation_lab.runtime.ports import LOOPBACK
from reservation_lab.runtime.waiting import wait_until

REQUEST_TIMEOUT = 10.0
PROXY_RETRIES = 3  # a request wrangler dev's proxy dropped is sent again at most this often
RETRY_PAUSE = 0.2  # seconds between two sends of one request


def wire(request: RawRequest, port: int) -> list[bytes]:
    """The request's bytes in pieces: request line and headers, then the body (chunked: 1000-byte chunks)."""
    body = request.body or b""
    head = [f"{request.method} {request.path} HTTP/1.1", f"Host: {LOOPBACK}:{port}", "Connection: close"]
    if request.content_type:
        head.append(f"Content-Type: {request.content_type}")
    pieces = [body[i:i + 1000] for i in range(0, len(body), 1000)]
    if request.chunked:
        head.append("Transfer-Encoding: chunked")
        pieces = [f"{len(piece):x}\r\n".encode() + piece + b"\r\n" for piece in pieces] + [b"0\r\n\r\n"]
    elif request.body is not None or request.method in ("POST", "PUT", "PATCH"):
        head.append(f"Content-Length: {len(body)}")
    return ["\r\n".join([*head, "", ""]).encode("ascii"), *pieces]


def send_raw(port: int, request: RawRequest, timeout: float = REQUEST_TIMEOUT) -> Answer:
    """Send exactly the request's method, path and body on a new loopback connection; read the answer.

    Written to the socket directly (nothing normalises the path or the framing). If the server answers before
    the body is sent (as it may for a body over the limit), sending stops and the answer is read.
    """
    try:
        sock = socket.create_connection((LOOPBACK, port), timeout=timeout)
    except OSError as exc:
        return Answer(error=f"{type(exc).__name__}: {exc}")
    status = 0
    try:
        for piece in wire(request, port):
            if select.select([sock], [], [], 0)[0]:
                break  # an early answer: read it instead of sending the rest
            try:
                sock.sendall(piece)
            except OSError:  # the server closed while the body was still coming; its answer may be readable
                break
        response = http.client.HTTPResponse(sock, method=request.method)
        response.begin()
        status = response.status
        headers = {k.lower(): v for k, v in response.getheaders()}
        return Answer(status, headers, response.read())
    except (OSError, http.client.HTTPException) as exc:
        return Answer(status, error=f"{type(exc).__name__}: {exc}"[:160])
    finally:
        sock.close()


def is_proxy_drop(answer: Answer) -> bool:
    """wrangler dev's own 500 "Network connection lost" (from miniflare's proxy, not from the Worker)."""
    return (answer.status >= 500 and "application/json" not in answer.headers.get("content-type", "")
            and b"Network connection lost" in answer.body)


def retry_reason(answer: Answer) -> str | None:
    """Why an answer is no answer of the Worker: "proxy drop", "connection" (reset or cut off), or None."""
    if is_proxy_drop(answer):
        return "proxy drop"
    return "connection" if answer.error is not None else None


def send_with_retry(port: int, request: RawRequest, retried: list[tuple[str, RawRequest]]) -> Answer:
    """`send_raw`, sent again (at most PROXY_RETRIES times) after a dev-server drop or a broken connection.

    Each retry appends (reason, request) to `retried`: "proxy drop" (wrangler dev's proxy answered 500
    "Network connection lost") or "connection" (reset or cut off before a whole answer arrived). Safe: the
    drill's requests change no state, and neither is an answer of the Worker. What still fails is judged.
    """
    answers: list[Answer] = []

    def answered_or_given_up() -> bool:
        answers.append(send_raw(port, request))
        reason = retry_reason(answers[-1])
        if reason is None or len(answers) > PROXY_RETRIES:
            return True
        retried.append((reason, request))  # sent again after the pause
        return False

    # No deadline: the number of sends bounds the wait (and each send has its own timeout).
    wait_until(answered_or_given_up, timeout=math.inf, interval=RETRY_PAUSE)
    return answers[-1]
