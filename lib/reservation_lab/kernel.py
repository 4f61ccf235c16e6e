"""The course's named Jupyter kernel: this environment's Python, installed into the environment itself."""

from __future__ import annotations

import sys
from pathlib import Path

KERNEL_NAME = "reservation-lab"
DISPLAY_NAME = "Reservation lab (Python 3)"


def kernel_dir(prefix: str = sys.prefix) -> Path:
    return Path(prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME


def ensure_kernel() -> str:
    """Install the `reservation-lab` kernelspec into sys.prefix if it is missing; return its name.

    Jupyter in this environment (JupyterLab, papermill, nbclient) then finds it, and it always runs
    the Python that has `reservation_lab` installed.
    """
    if not (kernel_dir() / "kernel.json").exists():
        from ipykernel.kernelspec import install

        install(kernel_name=KERNEL_NAME, display_name=DISPLAY_NAME, prefix=sys.prefix)
    return KERNEL_NAME


if __name__ == "__main__":
    print(ensure_kernel())
