"""What one reservation costs the local Worker: requests/s and server CPU per request, against GET /health.

Run (with the course's venv): python bench/bench_worker_cost.py [--quick] [--duration S] [--concurrency 1 10]

For each concurrency the same client (one asyncio loop, httpx, N requests in flight, keep-alive) runs for a
fixed time against one `wrangler dev`, first GET /health (the baseline: the Worker answers without a Durable
Object), then POST one-seat reservations with distinct requestIds over 64 workshops (each one a Durable
Object call with one SQLite transaction; the 64 objects are created before the clock starts). CPU is
user+system CPU time (psutil) of every process in the dev server's process group, before and after,
split into workerd (the runtime) and node (wrangler's supervisor, which also writes every log line).
wrangler 4 runs two workerd processes: the one listening on the dev server's port ("proxy": wrangler's
proxy Worker, which forwards each request) and the other one ("worker": the lab's Worker and its Durable
Objects; its CPU is the one that grows with the object call). Tick resolution: 1/SC_CLK_TCK s (10 ms).
Each line also shows the CPU of other programs on the machine (a busy machine makes a figure noisy).
Prints requests/s and CPU ms per request for both routes and the ratios reservation/health.
"""

from __future__ import annotations

from pathlib import Path

import common

from reservation_lab.runtime.devserver import DevServer

WORKSHOPS = 64


def labels(server: DevServer, pids: list[int]) -> dict[int, str]:
    """workerd-proxy (the workerd bound to the dev server's port), workerd-worker (the other), node, or the name."""
    named = {}
    for pid in pids:
        argv = common.process_argv(pid)
        if not argv:
            continue
        name = Path(argv[0]).name
        if name == "workerd":
            on_port = any(arg.endswith(f"=127.0.0.1:{server.port}") for arg in argv)
            named[pid] = "workerd-proxy" if on_port else "workerd-worker"
        else:
            named[pid] = "node" if name.startswith("node") else name
    return named


def measure(server: DevServer, route: str, tag: str, concurrency: int, duration: float, names: dict[int, str]) -> dict:
    make = common.health_request if route == "health" else common.reservation_request(tag, WORKSHOPS)
    before = common.group_cpu(server.pgid)
    with common.CpuMeter(server.pgid) as cpu:
        load = common.run_load(server.base_url, concurrency, duration, make)
    after = common.group_cpu(server.pgid)
    spent: dict[str, float] = {}
    for pid, now in after.items():
        label = names.get(pid, now.role)
        spent[label] = spent.get(label, 0.0) + now.seconds - (before[pid].seconds if pid in before else 0.0)
    workerd = sum(v for k, v in spent.items() if k.startswith("workerd"))
    node = spent.get("node", 0.0)
    requests = max(load.requests, 1)
    result = {
        "per_second": load.per_second,
        "workerd_ms": 1000 * workerd / requests,
        "node_ms": 1000 * node / requests,
        "server_ms": 1000 * sum(spent.values()) / requests,
        "others": cpu.percent(cpu.others),
    }
    details = " + ".join(f"{k[8:]} {1000 * v / requests:.2f}" for k, v in sorted(spent.items(), reverse=True)
                         if k.startswith("workerd"))
    codes = " ".join(f"{code}:{n}" for code, n in sorted(load.statuses.items()))
    errors = f"  errors {dict(load.errors)}" if load.errors else ""
    print(f"  {route:11s} c={concurrency:2d}: {load.requests:5d} answers {load.per_second:6.1f} req/s   "
          f"CPU ms/request: workerd {result['workerd_ms']:.2f} ({details})  node {result['node_ms']:.2f}  "
          f"all {result['server_ms']:.2f}   {cpu.line()}   [{codes}]{errors}")
    return result


def main(argv: list[str] | None = None) -> None:
    options = common.load_options(argv, __doc__, duration=(5.0, 1.0), levels=([1, 10], [1, 10]))
    duration, rounds = options.duration, options.rounds
    print(common.machine_line())
    print(common.load_line("before"))
    print(f"{duration:g} s per measurement, concurrency {' '.join(map(str, options.levels))}, {rounds} round(s) "
          f"alternating, CPU clock tick {1000 / common.CLOCK_TICKS:.0f} ms; baseline: GET /health; ratios of medians")
    results = {}
    with common.dev_server("bench-cost-") as server:
        print(f"wrangler dev on port {server.port}, healthy after {server.healthy_after:.1f} s")
        names = labels(server, server.processes())
        common.warm_up(server.base_url, common.health_request)
        common.warm_up(server.base_url, common.reservation_request("warm", WORKSHOPS))
        for concurrency in options.levels:
            for round_ in range(rounds):
                tag = f"c{concurrency}r{round_}"
                common.touch_workshops(server.base_url, tag, WORKSHOPS)
                for route in ("health", "reservation") if round_ % 2 == 0 else ("reservation", "health"):
                    result = measure(server, route, tag, concurrency, duration, names)
                    results.setdefault((route, concurrency), []).append(result)
    busiest = max(r["others"] for rs in results.values() for r in rs)
    print(common.load_line("after") + f"; other programs used up to {busiest:.0f}% of a core during a measurement")
    for concurrency in options.levels:
        reserve, health = (
            {key: common.median([r[key] for r in results[route, concurrency]])
             for key in results[route, concurrency][0]}
            for route in ("reservation", "health")
        )
        common.print_ratio(f"reservation/health requests/s c={concurrency}", reserve["per_second"],
                           health["per_second"], " req/s")
        for key, name in (("workerd_ms", "workerd"), ("node_ms", "node"), ("server_ms", "all server")):
            common.print_ratio(f"reservation/health {name} CPU per request c={concurrency}", reserve[key],
                               health[key], " ms")


if __name__ == "__main__":
    main()
