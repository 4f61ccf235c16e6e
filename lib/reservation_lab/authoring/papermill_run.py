"""Execute a course notebook with papermill into its run folder: the course's main job."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from reservation_lab.authoring.builder import languages, notebook_path
from reservation_lab.course.parameters import DEFAULTS, check_known
from reservation_lab.domain.config import new_run_name
from reservation_lab.errors import LabError
from reservation_lab.i18n import quoted
from reservation_lab.paths import RUNS_DIR


class _CellMarkers(logging.Filter):
    """Drop papermill's "Executing Cell N----" / "Ending Cell N----" lines; keep the cells' own output."""

    MARKER = re.compile(r"^(Executing|Ending) Cell \d+-*$")

    def filter(self, record: logging.LogRecord) -> bool:
        return not self.MARKER.match(record.getMessage().strip())


def _clean_up_after(root: Path) -> None:
    """A real-cloud run that stopped after a deploy leaves nothing behind: run the cleanup for it."""
    from reservation_lab.cloud.cleanup import cleanup, left_deployed
    from reservation_lab.domain.runs import open_run

    try:
        left = left_deployed(open_run(root))
    except LabError:
        return  # no run config yet: nothing was deployed
    if left:
        cleanup(root)


def run_course(
    language: str = DEFAULTS["language"],
    workdir: str | Path | None = None,
    log_output: bool = True,
    notebook: str | Path | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """Run notebooks/<language>/ top to bottom; return the report the notebook wrote (with `language`, `notebook`).

    `overrides` are notebook parameters (cloud, account_name, workshop, burst_size, port); the rest keep the
    defaults of course.parameters. `notebook` runs another copy of it (e.g. one with an edited cell) instead.
    """
    check_known(overrides)
    import papermill

    from reservation_lab.jupyter.papermill_engine import execute

    if log_output:  # papermill streams each cell's output through its logger
        logging.basicConfig(level=logging.WARNING, format="%(message)s")
        papermill_log = logging.getLogger("papermill")
        papermill_log.setLevel(logging.INFO)
        if not any(isinstance(f, _CellMarkers) for f in papermill_log.filters):
            papermill_log.addFilter(_CellMarkers())

    known = [prose.language for prose in languages()]
    if language not in known:
        raise LabError("errors.unknown_language", language=quoted(language), known=", ".join(known))
    root = Path(workdir).expanduser().resolve() if workdir else RUNS_DIR / new_run_name()
    root.mkdir(parents=True, exist_ok=True)
    output = root / f"concurrent-reservations.{language}.ipynb"
    source = Path(notebook) if notebook else notebook_path(language)
    parameters = {**DEFAULTS, "pause_before_cleanup": False, **overrides, "workdir": str(root), "language": language}
    try:
        execute(source, output, notebook_path(language).parent, parameters=parameters, log_output=log_output)
    except papermill.PapermillExecutionError as exc:
        raise LabError("errors.notebook_stopped", cell=exc.exec_count, ename=exc.ename, evalue=exc.evalue,
                       notebook=output) from None
    finally:
        if parameters["cloud"] is True:
            _clean_up_after(root)
    report = json.loads((root / "report.json").read_text())
    report["notebook"] = str(output)
    report["language"] = language
    return report
