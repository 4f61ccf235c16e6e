"""Where the test suite's CPU goes: `./lab test` (or the pytest arguments given) with a plugin that records, per
test, the CPU seconds of the pytest worker and of the processes it waited for (os.times(): wrangler, node, workerd,
papermill's kernels that exit through their parent), summed per test file.

The baseline, measured in the same run: the whole machine's busy CPU seconds (psutil) over the run. Each file's
line is its CPU and its share of that; what no file accounts for (processes nobody waited for: Jupyter kernels
started by servers, Chromium, the hub's learners) is the last line. Nothing is asserted.

    .venv/bin/python bench/bench_suite_cpu.py [--top 30] [-- pytest arguments]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
RECORDS = "BENCH_SUITE_CPU_DIR"


def _cpu() -> tuple[float, float]:
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Plugin side (`-p bench_suite_cpu`): one JSON line per test, in a file per xdist worker."""
    own0, waited0 = _cpu()
    yield
    own1, waited1 = _cpu()
    folder = Path(os.environ[RECORDS])
    with (folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl").open("a") as out:
        out.write(json.dumps({"file": item.nodeid.split("::")[0], "cpu": own1 - own0 + waited1 - waited0}) + "\n")


def busy_seconds() -> float:
    """The machine's busy CPU seconds since boot (all but idle and iowait), from psutil."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0) - getattr(times, "guest", 0.0) - getattr(
        times, "guest_nice", 0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=30, help="files to list, the costliest first")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest after `--`")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="suite-cpu-") as records:
        env = {**os.environ, RECORDS: records, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(BENCH_DIR), os.environ.get("PYTHONPATH")]))}
        print(f"machine: nproc {os.cpu_count()}, load {os.getloadavg()[0]:.2f} before", flush=True)
        busy0, wall0 = busy_seconds(), time.monotonic()
        done = subprocess.run([str(REPO / "lab"), "test", "-p", "bench_suite_cpu", *args.pytest_args], env=env,
                              cwd=REPO, stdout=subprocess.DEVNULL)
        busy, wall = busy_seconds() - busy0, time.monotonic() - wall0
        per_file: collections.Counter[str] = collections.Counter()
        for path in Path(records).glob("*.jsonl"):
            for line in path.read_text().splitlines():
                record = json.loads(line)
                per_file[record["file"]] += record["cpu"]
    print(f"baseline: wall {wall:.0f} s, machine busy {busy:.0f} CPU-s ({busy / wall / os.cpu_count():.0%} of "
          f"{os.cpu_count()} cores); pytest exit {done.returncode}")
    for name, cpu in per_file.most_common(args.top):
        print(f"{cpu:8.1f} CPU-s  ratio {cpu / busy:.3f}  {name}")
    counted = sum(per_file.values())
    print(f"{busy - counted:8.1f} CPU-s  ratio {(busy - counted) / busy:.3f}  (in no file: processes nobody waited"
          " for, and the machine's own)")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
