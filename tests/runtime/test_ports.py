"""Loopback ports: a free one is bindable, a busy one is refused with advice."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from reservation_lab.errors import LabError, PortBusyError
from reservation_lab.runtime.ports import LOOPBACK, ensure_port_free, free_port, port_is_free
from tests.support import raises_key


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A socket listening on a loopback port for the duration of the test."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        sock.listen()
        yield sock


def test_free_port_is_bindable() -> None:
    """The returned port is a real, unprivileged port a server can bind and listen on."""
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, port))
        sock.listen()
        assert sock.getsockname() == (LOOPBACK, port)


def test_free_port_is_reported_free() -> None:
    """What free_port returns, port_is_free and ensure_port_free agree with."""
    port = free_port()
    assert port_is_free(port)
    assert ensure_port_free(port) == port


def test_ensure_port_free_refuses_a_listening_port(listener: socket.socket) -> None:
    """A busy port: PortBusyError naming the port and telling to use port 0."""
    port = listener.getsockname()[1]
    with pytest.raises(PortBusyError) as caught:
        ensure_port_free(port)
    message = str(caught.value)
    assert f"Port {port}" in message
    assert "port 0" in message
    assert isinstance(caught.value, LabError)


def test_port_is_free_while_listening_and_after_close() -> None:
    """False while something listens, True again once the listener has closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert not port_is_free(port)
    assert port_is_free(port)
    assert ensure_port_free(port) == port


def test_a_wildcard_listener_also_makes_the_port_busy() -> None:
    """A server on 0.0.0.0 holds the loopback port too."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("0.0.0.0", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert not port_is_free(port)
        with raises_key("errors.port_busy", PortBusyError, port=port):
            ensure_port_free(port)


def test_free_ports_differ_while_held() -> None:
    """Two servers started one after the other each get their own port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as first:
        first.bind((LOOPBACK, free_port()))
        first.listen()
        second_port = free_port()
        assert second_port != first.getsockname()[1]
        assert port_is_free(second_port)


def test_picked_ports_avoid_the_ephemeral_ranges_and_never_repeat() -> None:
    """Picks stay below Linux's and macOS's ephemeral ranges, where port-0 sockets of other processes land."""
    from reservation_lab.runtime.ports import PICK_RANGE

    picks = [free_port() for _ in range(200)]
    assert len(set(picks)) == len(picks)
    assert all(port in PICK_RANGE for port in picks)
    assert PICK_RANGE.stop <= 32768


def test_the_address_in_use_report_is_read_in_the_pinned_wranglers_own_format() -> None:
    """The message parsed is the one the pinned miniflare writes; an upgrade that rewords it fails here."""
    from reservation_lab.paths import REPO_ROOT
    from reservation_lab.runtime.ports import port_in_use_reported

    bundle = (REPO_ROOT / "worker/node_modules/miniflare/dist/src/index.js").read_text()
    template = "`Address already in use (${match[1]}:${match[2]}). Please check"
    assert template in bundle
    sample = template.strip("`").replace("${match[1]}", "127.0.0.1").replace("${match[2]}", "41233")
    assert port_in_use_reported(f"✘ [ERROR] {sample} that you are not ...") == 41233
    assert port_in_use_reported("✘ [ERROR] The Workers runtime failed to start.") is None
