"""How a class scales on one machine: the class drill (`./lab class`) for N = 1, 2, 4, 8 learners.

Each N starts its own JupyterHub on loopback; the baseline is one learner alone, measured once in the same run
(the first drill's solo learner), and every row is a ratio against it: the class's p50/p95/max Run All time, the
mean peak PSS and CPU seconds per learner, and the machine's peak memory. Learners run the whole notebook as it is
(experiments included) unless --no-experiments. `--quick` runs N = 1, 2 without the experiments.

    python bench/bench_class.py [--sizes 1 2 4 8] [--ramp 0] [--no-experiments] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from reservation_lab.classroom.drill import ClassReport, run_class


def row(size: int, report: ClassReport, solo: float) -> str:
    times = report.times()
    learners = report.class_
    pss = statistics.mean(m.peak_pss_mib for m in learners)
    cpu = statistics.mean(m.cpu_seconds for m in learners)
    idle = statistics.mean(m.idle_pss_mib for m in learners)
    failed = sum(not m.outcome.passed for m in learners)
    return (f"| {size} | {times.get('p50', 0):.1f} | {times.get('p95', 0):.1f} | {times.get('max', 0):.1f} | "
            f"{times.get('p95', 0) / solo:.2f} | {pss:.0f} | {idle:.0f} | {cpu:.1f} | {report.machine_peak_mib:.0f} | "
            f"{failed} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--ramp", type=float, default=0.0)
    parser.add_argument("--no-experiments", dest="experiments", action="store_false")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sizes, experiments = ([1, 2], False) if args.quick else (args.sizes, args.experiments)
    overrides = {} if experiments else {"experiments": False}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"class drill on {commit}, experiments {'on' if experiments else 'off'}, ramp {args.ramp} s")
    lines = ["| learners | p50 s | p95 s | max s | p95 / solo | peak PSS MiB per learner | idle PSS MiB per learner | "
             "CPU s per learner | machine peak MiB | failed |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    solo = 0.0
    failed = 0
    with tempfile.TemporaryDirectory(prefix="bench-class-") as root:
        for size in sizes:
            report = run_class(size, Path(root) / f"class-{size}", ramp=args.ramp, overrides=overrides,
                               solo=not solo)
            if report.solo is not None:
                solo = report.solo.outcome.run_all_seconds
                lines.insert(2, f"| baseline: 1 alone | {solo:.1f} | | | 1 | {report.solo.peak_pss_mib:.0f} | "
                                f"{report.solo.idle_pss_mib:.0f} | {report.solo.cpu_seconds:.1f} | | "
                                f"{int(not report.solo.outcome.passed)} |")
            lines.append(row(size, report, solo))
            failed += sum(not m.outcome.passed for m in report.class_) + len(report.left_behind)
            print(lines[-1], flush=True)
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
