"""Does a requests/s figure measure the Durable Object or the Python client? The package's load path against wrk.

Run (with the course's venv): python bench/bench_driver_vs_wrk.py [--quick] [--duration S] [--concurrency 10 50]

Needs `wrk` on PATH (Debian/Ubuntu: `apt-get install -y wrk`); this script installs nothing.
Both clients POST one-seat reservations with a distinct requestId per request, spread over 64 workshops
(created before the clock starts; each accepts its first 4 and rejects the rest: one short SQLite transaction),
with the same number of connections in flight, for the same duration, against the same `wrangler dev`.
The Python side is one asyncio loop with httpx and N tasks (keep-alive), the shape of a course driver;
wrk (C, Lua request generator: wrk.format and a counter) is the baseline. Afterwards the workshops' own
status counts are summed, so each figure is checked against what the Durable Objects decided.
Prints requests/s, CPU of the server, of the client and of other programs on the machine (a busy machine
makes a figure noisy) and the ratio package/wrk per concurrency (medians over the rounds).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import common
import httpx

from reservation_lab.domain.routes import status_path
from reservation_lab.runtime.devserver import DevServer

WORKSHOPS = 64
WRK_SCRIPT = """\
local tag = "{tag}"
local workshops = {workshops}
local counter = 0
local threads = 0
local headers = {{["Content-Type"] = "application/json"}}

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function request()
  counter = counter + 1
  local path = string.format("/workshops/w%s-%d/reservations", tag, counter % workshops)
  local body = string.format('{{"requestId":"r%s-%d-%d","seats":1}}', tag, tid, counter)
  return wrk.format("POST", path, headers, body)
end
"""


def run_wrk(wrk: str, server: DevServer, tag: str, concurrency: int, duration: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as tmp:
        script = Path(tmp) / "reserve.lua"
        script.write_text(WRK_SCRIPT.format(tag=tag, workshops=WORKSHOPS))
        threads = min(2, concurrency)
        argv = [wrk, "-t", str(threads), "-c", str(concurrency), "-d", f"{duration:g}s", "--timeout", "30s",
                "-s", str(script), server.base_url + "/"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60)
    if proc.returncode != 0:
        raise SystemExit(f"wrk failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    out = proc.stdout
    done = re.search(r"(\d+) requests in ([\d.]+)(m?s)", out)
    if not done:
        raise SystemExit(f"could not read wrk's output:\n{out}")
    elapsed = float(done.group(2)) / (1000 if done.group(3) == "ms" else 1)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"requests": int(done.group(1)), "elapsed": elapsed, "non_2xx": int(non_2xx.group(1)) if non_2xx else 0,
            "errors": errors.group(1) if errors else "none"}


def decided(server: DevServer, tag: str) -> int:
    """Attempts the tag's workshops recorded (accepted + rejected), read from their durable status."""
    total = 0
    with httpx.Client(base_url=server.base_url, timeout=30.0, trust_env=False) as client:
        for i in range(WORKSHOPS):
            body = client.get(status_path(f"w{tag}-{i}")).json()
            total += body["acceptedRequests"] + body["rejectedRequests"]
    return total


def measure(kind: str, wrk: str, server: DevServer, tag: str, concurrency: int, duration: float) -> dict:
    with common.CpuMeter(server.pgid) as cpu:
        if kind == "wrk":
            result = run_wrk(wrk, server, tag, concurrency, duration)
            rejected, errors = result["non_2xx"], result["errors"]
        else:
            load = common.run_load(server.base_url, concurrency, duration, common.reservation_request(tag, WORKSHOPS))
            result = {"requests": load.requests, "elapsed": load.elapsed}
            rejected = sum(n for status, n in load.statuses.items() if not 200 <= status < 300)
            errors = dict(load.errors) or "none"
    result["per_second"] = result["requests"] / result["elapsed"]
    result["others"] = cpu.percent(cpu.others)
    result["decided"] = decided(server, tag)
    print(f"  {kind:7s} c={concurrency:3d}: {result['requests']:6d} answers in {result['elapsed']:5.2f} s = "
          f"{result['per_second']:6.1f} req/s   {cpu.line()}   non-2xx {rejected}   errors {errors}   "
          f"objects decided {result['decided']}")
    return result


def main(argv: list[str] | None = None) -> None:
    options = common.load_options(argv, __doc__, duration=(10.0, 2.0), levels=([10, 50], [10]))
    rounds, duration, levels = options.rounds, options.duration, options.levels
    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("wrk is not on PATH; install it (Debian/Ubuntu: `apt-get install -y wrk`, "
                         "macOS: `brew install wrk`) and run this again.")
    version = subprocess.run([wrk, "--version"], capture_output=True, text=True, timeout=30).stdout.split()
    print(common.machine_line() + f", wrk {version[1] if len(version) > 1 else '?'}")
    print(common.load_line("before"))
    print(f"POST one-seat reservations, distinct requestIds, {WORKSHOPS} workshops, {duration:g} s each, "
          f"concurrency {' '.join(map(str, levels))}, {rounds} round(s) alternating; baseline: wrk")
    with common.dev_server("bench-wrk-") as server:
        print(f"wrangler dev on port {server.port}, healthy after {server.healthy_after:.1f} s")
        common.warm_up(server.base_url, common.reservation_request("warm", WORKSHOPS))
        rates: dict[tuple[str, int], list[float]] = {}
        busiest = 0.0
        for concurrency in levels:
            for round_ in range(rounds):
                order = ("wrk", "package") if round_ % 2 == 0 else ("package", "wrk")
                for kind in order:
                    tag = f"{kind[0]}{concurrency}r{round_}"
                    common.touch_workshops(server.base_url, tag, WORKSHOPS)
                    result = measure(kind, wrk, server, tag, concurrency, duration)
                    rates.setdefault((kind, concurrency), []).append(result["per_second"])
                    busiest = max(busiest, result["others"])
    print(common.load_line("after") + f"; other programs used up to {busiest:.0f}% of a core during a measurement")
    for concurrency in levels:
        common.print_ratio(f"package/wrk requests/s c={concurrency}", common.median(rates["package", concurrency]),
                    common.median(rates["wrk", concurrency]), f" req/s, common.median of {rounds}")


if __name__ == "__main__":
    main()
