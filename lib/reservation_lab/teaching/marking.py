"""`./lab mark SUBMISSIONS`: a teacher runs every learner's notebook and gets a table learner × check.

Each submission (an .ipynb in SUBMISSIONS; the learner is the file's stem) is the lab or the exercises notebook of
one language. It runs with papermill in a folder of its own (OUT/<learner>/) with `record_only = True`, so every check
and every grade is recorded (domain.ledger) instead of stopping the notebook; a few run at a time. A submission
whose check, grade or setup cells differ from the course's is not run (tampered); one that stops is reported as
crashed (with the checks it made until then), one that runs past the timeout as hung; none affects another
learner's grade. The table goes to the screen, and to OUT/marks.csv and OUT/marks.json.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from reservation_lab.authoring.builder import CHECK_TAG, EXERCISES, LAB, Notebook, notebook_path
from reservation_lab.domain.ledger import LEDGER_FILE
from reservation_lab.errors import LabError
from reservation_lab.jupyter.kernelspec import ensure_kernel
from reservation_lab.jupyter.socket_kernels import papermill_command

GUARDED = re.compile(r"^(setup|parameters|grade-[a-z]+|stop-grading)$")  # cells a learner must not change
TIMEOUT = 900  # seconds one submission may run
FAILED_AT = re.compile(r'Exception encountered at "In \[(\d+)\]"')


@dataclass
class Result:
    """One learner's marks: `status` marked | crashed | hung | tampered | unreadable, the checks recorded."""

    learner: str
    notebook: str
    status: str
    detail: str = ""
    checks: list[dict[str, Any]] = field(default_factory=list)


def notebook_of(nb: nbformat.NotebookNode) -> Notebook:
    """The course notebook a submission is: the exercises when it has grade cells, else the lab."""
    return EXERCISES if any(str(cell.get("id", "")).startswith("grade-") for cell in nb.cells) else LAB


def tampered_cells(nb: nbformat.NotebookNode, reference: nbformat.NotebookNode) -> list[str]:
    """The ids of the course's check, grade and setup cells that the submission changed or removed."""
    submitted = {cell.get("id"): cell.source for cell in nb.cells if cell.cell_type == "code"}
    guarded = [cell for cell in reference.cells if cell.cell_type == "code" and (
        GUARDED.match(cell.id) or CHECK_TAG in cell.metadata.get("tags", []))]
    return [cell.id for cell in guarded if cell.id != "parameters" and submitted.get(cell.id) != cell.source]


def mark_one(path: Path, out: Path, language: str, parameters: dict[str, Any], timeout: float) -> Result:
    """Run one submission in OUT/<learner>/ (tamper check first) and collect its checks."""
    learner = path.stem
    try:
        nb = nbformat.read(path, as_version=4)
    except (OSError, ValueError) as error:
        return Result(learner, "?", "unreadable", str(error).splitlines()[0])
    kind = notebook_of(nb)
    result = Result(learner, kind.file_name, "marked")
    changed = tampered_cells(nb, nbformat.read(notebook_path(language, kind), as_version=4))
    if changed:
        result.status, result.detail = "tampered", ", ".join(changed)
        return result
    root = out / learner
    root.mkdir(parents=True, exist_ok=True)
    params = {"language": language, "record_only": True, "workdir": str(root / "run"), **parameters}
    if kind is LAB:
        params.update(cloud=False, pause_before_cleanup=False)
    command = papermill_command(str(path), str(root / path.name), "-k", ensure_kernel(),
                                "--cwd", str(notebook_path(language, kind).parent), "--no-progress-bar")
    for name, value in params.items():
        command += ["-y", f"{name}: {json.dumps(value)}"]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired:
        result.status, result.detail = "hung", f"> {timeout:.0f} s"
    else:
        if proc.returncode != 0:
            found = FAILED_AT.search(proc.stderr)
            result.status = "crashed"
            result.detail = f"In [{found.group(1)}]" if found else proc.stderr.strip().splitlines()[-1][:200]
    ledger = root / "run" / LEDGER_FILE
    result.checks = json.loads(ledger.read_text()) if ledger.exists() else []
    return result


def mark_all(submissions: Path, out: Path, language: str, parameters: dict[str, Any] | None = None,
              jobs: int | None = None, timeout: float = TIMEOUT) -> list[Result]:
    """Grade every .ipynb in `submissions`, `jobs` at a time (default: half the cores), into `out`."""
    paths = sorted(submissions.glob("*.ipynb"))
    if not paths:
        raise LabError("errors.no_submissions", folder=submissions)
    jobs = jobs or max(1, (os.cpu_count() or 2) // 2)
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda p: mark_one(p, out, language, parameters or {}, timeout), paths))
    write_results(results, out)
    return results


def labels_of(results: list[Result]) -> list[str]:
    """Every check label any learner's run recorded, in the order first seen."""
    return list(dict.fromkeys(check["label"] for result in results for check in result.checks))


def table(results: list[Result]) -> list[list[str]]:
    """Rows learner × check: 1 passed, 0 failed, empty when the check never ran; then status and detail."""
    labels = labels_of(results)
    rows = [["learner", "notebook", "status", *labels, "detail"]]
    for result in results:
        seen = {check["label"]: "1" if check["passed"] else "0" for check in result.checks}
        rows.append([result.learner, result.notebook, result.status, *(seen.get(label, "") for label in labels),
                     result.detail])
    return rows


def write_results(results: list[Result], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "marks.csv").open("w", newline="") as file:
        csv.writer(file).writerows(table(results))
    (out / "marks.json").write_text(json.dumps([asdict(result) for result in results], indent=2) + "\n")


def render(results: list[Result]) -> str:
    """The table for a terminal: ✓ passed, ✗ failed, · not run."""
    rows = table(results)
    shown = [rows[0]] + [[*row[:3], *({"1": "✓", "0": "✗", "": "·"}[v] for v in row[3:-1]), row[-1]]
                         for row in rows[1:]]
    widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
                     for row in shown)
