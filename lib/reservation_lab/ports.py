"""Loopback ports: pick a free one, refuse a busy one."""

from __future__ import annotations

import socket

from reservation_lab.errors import PortBusyError

LOOPBACK = "127.0.0.1"


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
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
        raise PortBusyError(
            f"Port {port} on {LOOPBACK} is already in use (maybe an earlier dev server); "
            "stop that process or use port 0 to pick a free port."
        )
    return port
