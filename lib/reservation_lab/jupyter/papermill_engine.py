"""papermill's engine "reservation-lab": its nbclient engine, the kernels on socket files (socket_kernels.py).

Every unattended run of the course goes through it: `./lab run` and `./lab build execute` in this process
(`execute`: the course's kernel, this engine, no progress bar), `./lab mark` through papermill's own command line
with the engine registered (`python -m reservation_lab.jupyter.papermill_engine IN OUT --engine reservation-lab`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from papermill.engines import NBClientEngine, papermill_engines

from reservation_lab.jupyter.kernelspec import ensure_kernel
from reservation_lab.jupyter.socket_kernels import ENGINE, AsyncSocketFileKernelManager


class SocketFileEngine(NBClientEngine):
    """papermill's nbclient engine with kernels over socket files."""

    @classmethod
    def execute_managed_notebook(cls, nb_man: Any, kernel_name: str, **kwargs: Any) -> Any:
        kwargs.setdefault("kernel_manager_class", AsyncSocketFileKernelManager)
        return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)


def papermill_engine() -> str:
    """Register the engine in this process; return its name (papermill's `engine_name`, its CLI's `--engine`)."""
    papermill_engines.register(ENGINE, SocketFileEngine)
    return ENGINE


def execute(source: Path, output: Path, cwd: Path, **options: Any) -> None:
    """papermill.execute_notebook with the course's kernel over socket files (papermill's other options pass on)."""
    import papermill

    papermill.execute_notebook(str(source), str(output), kernel_name=ensure_kernel(), engine_name=papermill_engine(),
                               cwd=str(cwd), progress_bar=False, **options)


def main(argv: list[str]) -> None:
    """papermill's command line, unchanged, with the engine registered."""
    from papermill.cli import papermill

    papermill_engine()
    papermill.main(args=argv, prog_name="papermill")


if __name__ == "__main__":
    main(sys.argv[1:])
