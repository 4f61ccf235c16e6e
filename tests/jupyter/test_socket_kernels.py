"""Kernels on socket files: what a TCP kernel dies of, and that the course's kernels have no port to lose."""

from __future__ import annotations

import json
import socket
import stat
import subprocess
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import KernelManager

from reservation_lab.jupyter.socket_kernels import SocketFileKernelManager, papermill_command

TRANSPORT = "import ipykernel.connect, json; print(json.loads(ipykernel.connect.get_connection_info())['transport'])"


def test_a_tcp_kernel_dies_when_one_of_its_ports_is_taken_before_it_starts() -> None:
    """The failure socket files remove (jupyter/jupyter_client#487): a port picked for the kernel, then taken."""
    thief = socket.socket()
    thief.bind(("127.0.0.1", 0))
    thief.listen()
    try:
        # What jupyter_client does (bind port 0, release, start the kernel), with the gap closed by the thief.
        km = KernelManager(kernel_name="python3", transport="tcp", ip="127.0.0.1", cache_ports=False)
        km.shell_port = thief.getsockname()[1]
        with pytest.raises(RuntimeError, match="Kernel died before replying to kernel_info"):
            _start(km)
    finally:
        thief.close()


def _start(km: KernelManager) -> None:
    km.start_kernel()
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=30)
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_socket_file_kernel_has_no_port_to_lose_and_leaves_no_file() -> None:
    """Its five channels are socket files in a private folder; the kernel says so itself. (The one TCP socket an
    ipykernel also listens on, its output pipe, it binds to a random port itself: no gap for anyone to use.)"""
    km = SocketFileKernelManager(kernel_name="python3")
    km.start_kernel()
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        folder = Path(km.ip).parent
        assert km.transport == "ipc"
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, "the sockets' folder is the user's alone"
        assert sorted(p.name for p in folder.iterdir()) == sorted(f"socket-{n}" for n in range(1, 6))
        assert len(str(folder / "socket-5")) < 100, "a Unix socket's path has at most 103 bytes on macOS"
        info = json.loads(Path(km.connection_file).read_text())
        assert (info["transport"], info["ip"], info["shell_port"]) == ("ipc", str(folder / "socket"), 1)
        printed: list[str] = []
        reply = client.execute_interactive(TRANSPORT, timeout=30, output_hook=lambda msg: printed.append(
            msg["content"]["text"]) if msg["msg_type"] == "stream" else None)
        assert reply["content"]["status"] == "ok"
        assert printed == ["ipc\n"]
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
    assert not folder.exists()


def test_a_restarted_socket_file_kernel_makes_its_sockets_again_and_a_hub_server_uses_them() -> None:
    """Restart Kernel (a learner's server on a class hub: jupyter/server_kernels.py) keeps the sockets' folder for
    the new kernel; only the final shutdown removes it."""
    from reservation_lab.jupyter.server_kernels import SocketFileServerKernelManager

    assert SocketFileServerKernelManager().transport == "ipc"
    km = SocketFileKernelManager(kernel_name="python3")
    km.start_kernel()
    folder = Path(km.ip).parent
    try:
        km.restart_kernel(now=True)
        client = km.client()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=60)
            assert client.execute_interactive("1", timeout=30)["content"]["status"] == "ok"
        finally:
            client.stop_channels()
        assert folder.exists()
    finally:
        km.shutdown_kernel(now=True)
    assert not folder.exists()


def test_papermill_on_the_command_line_runs_the_engine(tmp_path: Path) -> None:
    """papermill's command line with the engine (how `./lab mark` runs each submission) starts a socket-file
    kernel."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    nb.cells = [nbformat.v4.new_code_cell(TRANSPORT)]
    source, output = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, source)
    run = subprocess.run(papermill_command(str(source), str(output), "-k", "python3", "--no-progress-bar"),
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    outputs = nbformat.read(output, as_version=4).cells[0].outputs
    assert [o["text"] for o in outputs] == ["ipc\n"]


def test_nbval_starts_its_kernels_on_socket_files() -> None:
    """pyproject's addopts load this module as a pytest plugin; nbval's kernel manager is then ours."""
    import nbval.kernel

    assert nbval.kernel.KernelManager is SocketFileKernelManager
