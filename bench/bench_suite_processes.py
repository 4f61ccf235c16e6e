"""Where the suite's CPU goes, by process: every process on the machine sampled every 0.25 s while a command runs
(by default `./lab test`), its last CPU seconds kept, and summed by kind (wrangler, workerd, Chromium, kernels, ...)
and by the test file it was started for (`PYTEST_CURRENT_TEST` in its environment, inherited from the test).

bench_suite_cpu.py counts per test what the pytest worker waited for; this one also sees the processes nobody waits
for (a hub learner's server and kernel, Chromium, nbval's kernels). Processes that live less than 0.25 s are missed
(a lower bound); the sampler's own CPU is the baseline line. Nothing is asserted.

    .venv/bin/python bench/bench_suite_processes.py [--top 25] [-- command ...]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
KINDS = ("workerd", "wrangler-dist", "esbuild", "ipykernel", "jupyterhub-singleuser", "start.sh", "jupyter-lab",
         "jupyterhub", "configurable-http-proxy", "chrom", "sphinx", "papermill", "nbgrader", "execnet", "pytest",
         "npm", "node", "python")


def kind_of(cmdline: list[str]) -> str:
    text = " ".join(cmdline)
    if "exec(eval(sys.stdin.readline()))" in text:
        return "execnet"  # a pytest-xdist worker
    return next((kind for kind in KINDS if kind in text), os.path.basename(cmdline[0]) if cmdline else "?")


def sample(seen: dict, stop: threading.Event, interval: float = 0.25) -> None:
    """`seen[(pid, start)] = [CPU-s during the run, kind, test file]`; a process already running at the first sweep
    counts from there."""
    base: dict = {}
    first = True
    while not stop.is_set():
        for proc in psutil.process_iter():
            try:
                key = (proc.pid, proc.create_time())
                times = proc.cpu_times()
                cpu = times.user + times.system
                if key not in seen:
                    test = proc.environ().get("PYTEST_CURRENT_TEST", "")
                    seen[key] = [0.0, kind_of(proc.cmdline()), test.split("::")[0] or "(no test)"]
                    base[key] = cpu if first else 0.0
                seen[key][0] = cpu - base[key]
            except psutil.Error:
                continue
        first = False
        stop.wait(interval)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("command", nargs="*", default=[str(REPO / "lab"), "test"])
    args = parser.parse_args(argv)
    seen: dict = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(seen, stop), daemon=True)
    own0 = sum(os.times()[:2])
    started = time.monotonic()
    sampler.start()
    done = subprocess.run(args.command, cwd=REPO, stdout=subprocess.DEVNULL)
    stop.set()
    sampler.join()
    wall, own = time.monotonic() - started, sum(os.times()[:2]) - own0
    total = sum(cpu for cpu, _, _ in seen.values())
    print(f"command exit {done.returncode}, {wall:.0f} s wall, {total:.0f} CPU-s sampled over {len(seen)} processes")
    print(f"  baseline: the sampler's own CPU {own:.1f} CPU-s")
    for title, column in (("by kind", 1), ("by test file", 2)):
        sums = collections.Counter()
        for row in seen.values():
            sums[row[column]] += row[0]
        print(f"{title}:")
        for name, cpu in sums.most_common(args.top):
            print(f"  {cpu:7.1f} CPU-s  {cpu / total:5.3f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
