"""What Node's compile cache saves on each wrangler command (runtime.toolchain.compile_cache_env).

Run (with the course's venv): python bench/bench_compile_cache.py [--quick]

Every wrangler command parses wrangler's 10 MB bundle first. Measured here, alternating in the same run: the CPU
seconds of `wrangler --version` (the command's own process, reaped: getrusage of the children) and the wall time of
a cold `wrangler dev` start to /health and stop, each with the compile cache disabled (NODE_DISABLE_COMPILE_CACHE=1,
the baseline) and with it warm. Prints the medians and the ratios cached/uncached; `--quick` does one of each.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
from pathlib import Path

from common import cold_start_stop, load_line, machine_line, median, print_ratio

from reservation_lab.runtime.toolchain import find_toolchain
from reservation_lab.runtime.wrangler import wrangler_env

DISABLE = "NODE_DISABLE_COMPILE_CACHE"


def version_cpu(cached: bool) -> float:
    """CPU seconds of one `wrangler --version`, with or without the compile cache."""
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as logs:
        env = wrangler_env(Path(logs), debug_log=False)
        env.pop(DISABLE, None)
        if not cached:
            env[DISABLE] = "1"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(find_toolchain().wrangler_argv("--version"), env=env, capture_output=True, check=True,
                       timeout=60)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def dev_start_seconds(cached: bool) -> float:
    """Wall seconds of one cold `wrangler dev` start to /health and its stop."""
    if cached:
        os.environ.pop(DISABLE, None)
    else:
        os.environ[DISABLE] = "1"
    try:
        return cold_start_stop(prefix="bench-cache-")[2]
    finally:
        os.environ.pop(DISABLE, None)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one of each")
    args = parser.parse_args(argv)
    print(machine_line())
    print(load_line("before"))
    rounds = 1 if args.quick else 7
    version_cpu(cached=True)  # warm the cache (the first cached run writes it)
    cpu: dict[bool, list[float]] = {False: [], True: []}
    wall: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(rounds):
        for cached in (False, True):
            cpu[cached].append(version_cpu(cached))
            wall[cached].append(dev_start_seconds(cached))
    for cached in (False, True):
        label = "cached" if cached else "uncached"
        print(f"wrangler --version ({label}): median {median(cpu[cached]):.3f} CPU s of {rounds}")
        print(f"wrangler dev cold start and stop ({label}): median {median(wall[cached]):.2f} s of {rounds}")
    print(load_line("after"))
    print_ratio("compile cache/none wrangler --version CPU", median(cpu[True]), median(cpu[False]))
    print_ratio("compile cache/none dev server start", median(wall[True]), median(wall[False]))


if __name__ == "__main__":
    main()
