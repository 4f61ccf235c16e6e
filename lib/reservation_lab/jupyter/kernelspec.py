"""The course's named Jupyter kernel: this environment's Python, installed into the environment itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

KERNEL_NAME = "reservation-lab"
DISPLAY_NAME = "Reservation lab (Python 3)"


def kernel_dir(prefix: str = sys.prefix) -> Path:
    return Path(prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME


QUIET = "--IPKernelApp.log_level=ERROR"  # no "running over TCP without encryption" warning on loopback runs
EXTENSION = "--ext=reservation_lab.course.kernel_extension"  # lab errors explained from the first cell on


def ensure_kernel(prefix: str = sys.prefix) -> str:
    """Install the `reservation-lab` kernelspec into sys.prefix if it is missing; return its name.

    Jupyter in this environment (JupyterLab, papermill, nbclient) then finds it, and it always runs
    the Python that has `reservation_lab` installed. The kernel logs errors only: its one routine
    warning (plain TCP between kernel and client, both on this machine) means nothing to a learner. It loads
    course.kernel_extension, so a lab error is explained in the learner's language even before the setup cell.
    """
    spec = kernel_dir(prefix) / "kernel.json"
    if not spec.exists():
        from ipykernel.kernelspec import install

        install(kernel_name=KERNEL_NAME, display_name=DISPLAY_NAME, prefix=prefix)
    data = json.loads(spec.read_text())
    missing = [arg for arg in (QUIET, EXTENSION) if arg not in data["argv"]]
    if missing:
        data["argv"].extend(missing)
        spec.write_text(json.dumps(data, indent=1) + "\n")
    return KERNEL_NAME
