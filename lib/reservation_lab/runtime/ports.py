"""Loopback ports: pick a free one, refuse a busy one."""

from __future__ import annotations

import random
import re
import socket
import threading

from reservation_lab.errors import PortBusyError

LOOPBACK = "127.0.0.1"

# Ports are picked below every common ephemeral range (Linux 32768-60999, macOS and Windows 49152-65535),
# so the outgoing connections and port-0 sockets of other processes (miniflare's own included) never take
# a port between the moment it is picked and the moment `wrangler dev` binds it.
PICK_RANGE = range(20000, 32000)
_picked: set[int] = set()
_picked_lock = threading.Lock()
_random = random.SystemRandom()

ADDRESS_IN_USE = re.compile(r"Address already in use \((?P<host>[^():\s]+):(?P<port>\d+)\)")


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now and this process has not handed out before."""
    with _picked_lock:
        for _ in range(200):
            port = _random.choice(PICK_RANGE)
            if port not in _picked and port_is_free(port):
                _picked.add(port)
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # a crowded range: let the kernel choose
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def port_is_free(port: int) -> bool:
    """True if nothing listens on 127.0.0.1:port (a bind would succeed).

    SO_REUSEADDR lets the bind ignore connections of a killed server lingering in TIME_WAIT;
    on Linux a live listener still makes it fail.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
        return True


def ensure_port_free(port: int) -> int:
    """Return port if it is free, else raise a PortBusyError that says what to do."""
    if not port_is_free(port):
        raise PortBusyError("errors.port_busy", port=port, host=LOOPBACK)
    return port


def port_in_use_reported(log_text: str) -> int | None:
    """The port `wrangler dev` reported as already in use in its output, if it did."""
    match = ADDRESS_IN_USE.search(log_text)
    return int(match["port"]) if match else None
