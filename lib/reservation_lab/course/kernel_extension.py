"""The course's kernel (`reservation-lab`) loads this IPython extension at start (jupyter.kernelspec adds `--ext` to
its kernel.json): lab errors are explained in the learner's language from the first cell on, also one run before
the setup cell (a NameError for a name the course defines: "run the cells above first")."""

from __future__ import annotations

from typing import Any

from reservation_lab.course.friendly import friendly_errors
from reservation_lab.course.session import error_language_and_run


def load_ipython_extension(shell: Any) -> None:
    friendly_errors(error_language_and_run, shell)
