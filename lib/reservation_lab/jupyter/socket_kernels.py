"""Jupyter kernels on socket files instead of TCP ports, for every notebook the course executes unattended.

jupyter_client picks a kernel's five TCP ports by binding port 0 and releasing it, then starts the kernel, which
binds them a second or so later. Any process on the machine can take one of those ports in between (a dev server,
an outgoing connection; jupyter/jupyter_client#487); the kernel then dies before it answers ("Kernel died before
replying to kernel_info"). `./lab mark` starts kernels in parallel and the test suite starts them while dev
servers open ports, so that happens. Kernels started here use ZeroMQ's `ipc` transport instead: Unix socket files
in a folder of their own (mode 0700, removed at shutdown), which nobody else can take. POSIX only, as the course.

Used by papermill through its engine `reservation-lab` (jupyter/papermill_engine.py), by nbclient as
`kernel_manager_class=AsyncSocketFileKernelManager`, by nbval through this module as a pytest plugin
(`-p reservation_lab.jupyter.socket_kernels`, in pyproject's addopts), and by a learner's server on a class hub
(jupyter/server_kernels.py). `./lab jupyter` on a learner's own machine keeps TCP: it starts one kernel at a time.
Imports jupyter_client only (the plugin loads in every pytest process).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from typing import Any

from jupyter_client.connect import ConnectionFileMixin
from jupyter_client.manager import AsyncKernelManager, KernelManager
from traitlets import CaselessStrEnum, default

ENGINE = "reservation-lab"  # papermill's engine for these kernels (papermill_engine.py)
FOLDER_PREFIX = "rl-kernel-"  # short: a Unix socket path has at most 103 bytes on macOS, 107 on Linux


class SocketFiles(ConnectionFileMixin):
    """The `ipc` transport, the sockets in a private temporary folder made per kernel manager."""

    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

    @default("ip")
    def _private_socket_prefix(self) -> str:
        return os.path.join(tempfile.mkdtemp(prefix=FOLDER_PREFIX), "socket")

    _folder_done = False  # the kernel is gone for good (not restarting): its folder goes with its sockets

    def cleanup_connection_file(self) -> None:
        """Called at a shutdown that is no restart (jupyter_client), just before the sockets are cleaned up."""
        super().cleanup_connection_file()
        self._folder_done = True

    def cleanup_ipc_files(self) -> None:
        super().cleanup_ipc_files()
        if self.transport == "ipc" and self._folder_done:  # a restarted kernel makes its sockets there again
            with contextlib.suppress(OSError):
                os.rmdir(os.path.dirname(self.ip))


class SocketFileKernelManager(SocketFiles, KernelManager):
    """jupyter_client's KernelManager over socket files (nbval's kernels)."""


class AsyncSocketFileKernelManager(SocketFiles, AsyncKernelManager):
    """jupyter_client's AsyncKernelManager over socket files (nbclient's and papermill's kernels)."""


def papermill_command(*arguments: str) -> list[str]:
    """papermill's command line with these kernels (papermill_engine.py): `python -m … ARGUMENTS --engine …`."""
    return [sys.executable, "-m", "reservation_lab.jupyter.papermill_engine", *arguments, "--engine", ENGINE]


def pytest_configure(config: Any) -> None:
    """pytest plugin: nbval starts its kernels with jupyter_client's KernelManager; give it ours."""
    with contextlib.suppress(ImportError):
        import nbval.kernel

        nbval.kernel.KernelManager = SocketFileKernelManager
