"""How long a grade takes: each exercise's reference solution and stub, graded as the notebook grades them, against
the cold start of `wrangler dev` that every grade pays once.

Run (with the course's venv): python bench/bench_grade.py [--quick] [--large] [--exercise NAME ...]

The baseline is a cold start of `wrangler dev` (start → /health answers → stopped as a process group), measured in
the same run. Each grade uses the exercises notebook's defaults (course.parameters.EXERCISE_DEFAULTS: at most 30
generated workloads, a 50 s budget, seed 0) on a server of its own, as `lab.grade` does on its first call. Prints
per grade the seconds, the workloads run (shrinking included), the requests sent and the restarts, and the ratio
grade/cold start. `--quick` grades one solution and one stub with 3 workloads and a 10 s budget; `--large` draws the
workloads from the grader's large search (two to four rounds of 6-16 requests; twelve client calls).
"""

from __future__ import annotations

import argparse
import tempfile
from functools import partial
from pathlib import Path

from common import cold_start_stop, load_line, machine_line, print_ratio, timed

from reservation_lab.course.parameters import EXERCISE_DEFAULTS
from reservation_lab.exercises.catalog import exercises
from reservation_lab.exercises.grader import grade_source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one solution and one stub, 3 workloads, 10 s")
    parser.add_argument("--large", action="store_true", help="the large workloads (grader.grade(large=True))")
    parser.add_argument("--exercise", action="append", choices=list(exercises()), help="only these (repeatable)")
    args = parser.parse_args(argv)
    print(machine_line())
    print(load_line("before"))
    _, _, cold = cold_start_stop()
    print(f"  baseline: wrangler dev cold start and stop {cold:.2f} s")
    names = ["guard"] if args.quick else args.exercise or list(exercises())
    examples = 3 if args.quick else EXERCISE_DEFAULTS["workloads"]
    budget = 10 if args.quick else EXERCISE_DEFAULTS["grade_seconds"]
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        for name in names:
            task = exercises()[name]
            for kind, source in (("solution", task.solution()), ("stub", task.stub())):
                seconds, grade = timed(partial(grade_source, task, source, Path(tmp) / f"{name}-{kind}",
                                               seed=EXERCISE_DEFAULTS["seed"], examples=examples, budget=budget,
                                               large=args.large))
                verdict = "passed" if grade.passed else f"failed ({grade.failure.kind})"
                print(f"  {name} {kind}: {verdict}, {grade.trials} workloads, {grade.requests} requests, "
                      f"{grade.restarts} restarts, {seconds:.1f} s")
                print_ratio(f"grade/cold start {name} {kind}", seconds, cold, " s")
    print(load_line("after"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
