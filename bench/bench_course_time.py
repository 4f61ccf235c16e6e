"""How long the course takes: one language's notebook end to end (local mode) against the floor of its parts.

Run (with the course's venv): python bench/bench_course_time.py [--quick] [--language de]

The floor is what the notebook cannot avoid, measured in the same run: two cold starts of `wrangler dev`
(start → /health answers → stopped as a process group: the burst's server and the restarted one), the
Worker's node tests (`reservation_lab.runtime.nodetests.run_node_tests`) and `wrangler deploy --dry-run`
(`reservation_lab.runtime.wrangler.dry_run`). The race cell starts two more servers (the naive and the atomic
Worker), so a second ratio counts those too (two more measured starts). The notebook is
`reservation_lab.authoring.papermill_run.run_course(language, log_output=False)` with papermill into a temporary folder:
kernel start, imports, every cell. The same notebook without its Experiments part (every cell whose id starts
with `experiment` or `md-experiment`) runs too, so the experiments' share is a ratio of two runs measured here.
Prints each time and the ratios; `--quick` measures only the floor (a few seconds) and prints the dev servers'
share of it.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import nbformat
from common import cold_start_stop, load_line, machine_line, print_ratio, timed

from reservation_lab.authoring.builder import notebook_path
from reservation_lab.authoring.papermill_run import run_course
from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.runs import create_run_folder
from reservation_lab.runtime.nodetests import run_node_tests
from reservation_lab.runtime.processes import processes_mentioning
from reservation_lab.runtime.wrangler import dry_run


def floor() -> dict[str, float]:
    parts = {}
    for i in (1, 2):
        healthy, stop, total = cold_start_stop()
        parts[f"dev server {i}"] = total
        print(f"  dev server cold start {i}: healthy after {healthy:.2f} s, stopped in {stop:.2f} s, {total:.2f} s")
    seconds, result = timed(run_node_tests)
    parts["node tests"] = seconds
    print(f"  node tests: {result.passed} passed in {seconds:.2f} s")
    with tempfile.TemporaryDirectory(prefix="bench-dry-") as tmp:
        run = create_run_folder(Path(tmp) / "run")
        write_wrangler_config(run)
        seconds, _ = timed(lambda: dry_run(run, echo=None))
    parts["dry run"] = seconds
    print(f"  wrangler deploy --dry-run: {seconds:.2f} s")
    return parts


def without_experiments(language: str, folder: Path) -> Path:
    """A copy of the language's notebook without the Experiments part."""
    nb = nbformat.read(notebook_path(language), as_version=4)
    nb.cells = [cell for cell in nb.cells if not cell.get("id", "").startswith(("experiment", "md-experiment"))]
    path = folder / f"no-experiments.{language}.ipynb"
    nbformat.write(nb, path)
    return path


def notebook_seconds(language: str, notebook: Path | None = None) -> float:
    """One papermill run of the notebook (or of `notebook`) in a temporary folder; nothing may be left running."""
    with tempfile.TemporaryDirectory(prefix="bench-course-") as tmp:
        seconds, report = timed(lambda: run_course(language=language, workdir=Path(tmp) / "run", log_output=False,
                                                   notebook=notebook))
        left = processes_mentioning(tmp)
    if left:
        raise SystemExit(f"the notebook left processes running: {left}")
    print(f"notebook ({language}, local mode{'' if notebook is None else ', without experiments'}): "
          f"{seconds:.2f} s  {report.get('summary', '')}")
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="measure only the floor, skip the notebook")
    parser.add_argument("--language", default="de")
    args = parser.parse_args(argv)
    print(machine_line())
    print(load_line("before"))
    print("floor:")
    parts = floor()
    floor_total = sum(parts.values())
    starts = parts["dev server 1"] + parts["dev server 2"]
    print(f"  floor total: {floor_total:.2f} s")
    if not args.quick:
        seconds = notebook_seconds(args.language)
        with tempfile.TemporaryDirectory(prefix="bench-course-copy-") as tmp:
            without = notebook_seconds(args.language, without_experiments(args.language, Path(tmp)))
    print(load_line("after"))
    print_ratio("dev-server starts/floor", starts, floor_total, " s")
    if not args.quick:
        print_ratio(f"notebook/floor ({args.language})", seconds, floor_total, " s")
        print_ratio("notebook minus floor/floor", seconds - floor_total, floor_total, " s")
        print_ratio(f"notebook/floor with the race's 2 starts ({args.language})", seconds, floor_total + starts, " s")
        print_ratio(f"notebook with/without the experiments ({args.language})", seconds, without, " s")


if __name__ == "__main__":
    main()
