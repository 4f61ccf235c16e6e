"""runtime.http: proxies for remote https only, never for loopback; *.workers.dev through the double when asked."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import httpx
import pytest

from reservation_lab.runtime.http import WORKERS_DEV_VIA, client_options, is_loopback
from reservation_lab.runtime.wrangler import wrangler_env


def recording_proxy() -> tuple[int, list[bytes], socket.socket]:
    """A loopback 'proxy' that records the first line of each connection and closes it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    seen: list[bytes] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                seen.append(conn.recv(200).split(b"\r\n")[0])

    threading.Thread(target=accept, daemon=True).start()
    return server.getsockname()[1], seen, server


def test_remote_https_goes_through_the_proxy_and_loopback_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    port, seen, server = recording_proxy()
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    try:
        url = "https://labex-c10-o03-0123456789ab.lab-learner.workers.dev/health"
        with httpx.Client(timeout=2, **client_options(url)) as client, pytest.raises(httpx.HTTPError):
            client.get(url)
        assert seen == [b"CONNECT labex-c10-o03-0123456789ab.lab-learner.workers.dev:443 HTTP/1.1"]
        direct = f"http://127.0.0.1:{port}/health"  # the proxy port itself, asked directly: it closes at once
        with httpx.Client(timeout=2, **client_options(direct)) as client, pytest.raises(httpx.HTTPError):
            client.get(direct)
        assert seen[1].startswith(b"GET /health ")  # direct, not "GET http://…" through a proxy
    finally:
        server.close()


def test_workers_dev_goes_to_the_double_only_when_set_and_only_to_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WORKERS_DEV_VIA, raising=False)
    assert "mounts" not in client_options("https://x.sub.workers.dev")
    monkeypatch.setenv(WORKERS_DEV_VIA, "http://10.0.0.1:8080")
    assert "mounts" not in client_options("https://x.sub.workers.dev")  # never a non-loopback target
    monkeypatch.setenv(WORKERS_DEV_VIA, "http://127.0.0.1:8080")
    assert list(client_options("https://x.sub.workers.dev")["mounts"]) == ["all://*.workers.dev"]
    assert is_loopback("http://127.0.0.1:1") and is_loopback("http://localhost:2") and not is_loopback("https://a.b")


def test_wrangler_keeps_loopback_off_a_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "intranet.example")
    env = wrangler_env(tmp_path)
    assert env["NO_PROXY"] == "intranet.example,127.0.0.1,localhost,::1" == env["no_proxy"]
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert "NO_PROXY" not in wrangler_env(tmp_path)
