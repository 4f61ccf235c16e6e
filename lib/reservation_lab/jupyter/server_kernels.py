"""A learner's Jupyter server on a class hub with kernels on socket files (deploy/singleuser/start.sh sets it).

On one machine with many learners (The Littlest JupyterHub, the class drill) every server starts kernels on TCP
ports that jupyter_client picked and released a moment before; another learner's kernel or dev server can take one
in between, and the kernel dies at its start ("Address already in use": a class drill's learner lost their kernel
so). jupyter_server's own kernel manager (restarter, execution state) over the `ipc` transport of socket_kernels
cannot lose its sockets. Imports jupyter_server: loaded only in a learner's server, never by the course's kernel.
"""

from __future__ import annotations

from jupyter_server.services.kernels.kernelmanager import ServerKernelManager

from reservation_lab.jupyter.socket_kernels import SocketFiles


class SocketFileServerKernelManager(SocketFiles, ServerKernelManager):
    """jupyter_server's kernel manager over socket files in a private folder of their own."""
