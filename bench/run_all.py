"""Run every benchmark in one go: `python bench/run_all.py [--quick]` (also `./lab bench`).

Each bench prints its own baseline and ratios; this runner only sequences them and reports which failed.
The wrk comparison is skipped, with the reason, when `wrk` is not installed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
BENCHES = ("bench_checker.py", "bench_burst_fidelity.py", "bench_driver_vs_wrk.py", "bench_worker_cost.py",
           "bench_course_time.py", "bench_compile_cache.py", "bench_grade.py", "bench_site.py", "bench_footprint.py",
           "bench_class.py")
QUICK_FLAG = {"bench_checker.py": None}  # the checker bench has no quick mode: it is fast already


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="pass --quick to every bench that has it")
    args = parser.parse_args(argv)
    failed: list[str] = []
    for name in BENCHES:
        print(f"\n=== {name} ===", flush=True)
        if name == "bench_driver_vs_wrk.py" and shutil.which("wrk") is None:
            print("skipped: wrk is not installed (Debian/Ubuntu: apt-get install -y wrk)")
            continue
        command = [sys.executable, str(BENCH_DIR / name)]
        if args.quick and QUICK_FLAG.get(name, "--quick"):
            command.append("--quick")
        if subprocess.run(command).returncode != 0:
            failed.append(name)
    print(f"\n{len(BENCHES) - len(failed)} of {len(BENCHES)} benches ran; failed: {', '.join(failed) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
