"""Is the package's burst the seeds' shell burst? Wall time, send spread and requests in flight, both on one Worker.

Run (with the course's venv): python bench/bench_burst_fidelity.py [--quick] [--size N] [--repeat R]

The shell burst is the seeds' `seq 1 N | xargs -P N -I{} sh -c 'curl … > out-$1.json' _ {}`, with `date +%s%N`
written just before and just after curl (so "sent" includes starting curl). The package burst is
`reservation_lab.domain.burst.send_burst_sync` (asyncio + httpx, released by a barrier; Attempt.sent/answered).
Both run against the same `wrangler dev`, alternately, each repetition on a fresh workshop.

In flight is measured twice: at the client, from the sent/answered intervals; and in the Worker's own log,
which has no timestamps but has an order: each `reservation_decided` line is written while its request is
being answered, and wrangler's `POST … 201/409` line after the answer went out, so the largest number of
decided-but-not-yet-answered requests while reading the log in order is a lower bound of what the Worker
held at once. The baseline is the shell burst; ratios are package/shell (medians over the repetitions).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from common import CpuMeter, dev_server, load_line, machine_line, max_in_flight, median, print_ratio

from reservation_lab.domain.burst import send_burst_sync
from reservation_lab.domain.invariants import expected_summary
from reservation_lab.runtime.devserver import DevServer

SHELL_BURST = (
    "seq 1 {size} | xargs -P {size} -I{{}} sh -c '"
    "date +%s%N > sent-$1; "
    "curl --silent --request POST http://127.0.0.1:{port}/workshops/{workshop}/reservations "
    "--header \"content-type: application/json\" "
    "--data \"{{\\\"requestId\\\":\\\"request-$1\\\",\\\"seats\\\":1}}\" > out-$1.json; "
    "date +%s%N > answered-$1' _ {{}}"
)
ANSWER_LINE = re.compile(r"\[wrangler:info\] POST /workshops/([a-z0-9-]+)/reservations (\d{3}) [^(]*\((\d+)ms\)")


@dataclass
class Burst:
    """One burst as seen by the client and by the Worker's log."""

    wall: float
    intervals: list[tuple[float, float]]  # (sent, answered) per request, seconds
    statuses: list[str | None]
    worker_in_flight: int = 0
    server_ms: float = 0.0  # median duration wrangler reports per request

    @property
    def spread(self) -> float:
        sent = [start for start, _ in self.intervals]
        return max(sent) - min(sent)

    @property
    def client_in_flight(self) -> int:
        return max_in_flight(self.intervals)

    @property
    def outcome(self) -> tuple[int, int]:
        return self.statuses.count("accepted"), self.statuses.count("rejected")


def shell_burst(server: DevServer, workshop: str, size: int) -> Burst:
    """The seeds' xargs/curl burst in a scratch folder; times from `date +%s%N` around each curl."""
    command = SHELL_BURST.format(size=size, port=server.port, workshop=workshop)
    with tempfile.TemporaryDirectory(prefix="bench-curl-") as tmp:
        started = time.perf_counter()
        subprocess.run(["sh", "-c", command], cwd=tmp, check=True, timeout=60)
        wall = time.perf_counter() - started
        folder = Path(tmp)
        intervals, statuses = [], []
        for i in range(1, size + 1):
            sent = int((folder / f"sent-{i}").read_text()) / 1e9
            answered = int((folder / f"answered-{i}").read_text()) / 1e9
            intervals.append((sent, answered))
            try:
                statuses.append(json.loads((folder / f"out-{i}.json").read_text()).get("status"))
            except ValueError:
                statuses.append(None)
    return Burst(wall, intervals, statuses)


def package_burst(server: DevServer, workshop: str, size: int) -> Burst:
    started = time.perf_counter()
    decisions = send_burst_sync(server.base_url, workshop, size)
    wall = time.perf_counter() - started
    intervals = [(d.attempts[0].sent, d.attempts[-1].answered) for d in decisions]
    return Burst(wall, intervals, [d.status for d in decisions])


def read_worker_log(server: DevServer, offset: int, workshop: str, size: int, timeout: float = 10.0) -> None | tuple:
    """Wait (bounded) until the log holds `size` answers for the workshop; return (in flight, median ms)."""
    deadline = time.monotonic() + timeout
    while True:
        with server.log_path.open("rb") as log:
            log.seek(offset)
            lines = log.read().decode(errors="replace").splitlines()
        answers = [m for m in map(ANSWER_LINE.search, lines) if m and m.group(1) == workshop]
        if len(answers) >= size or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    held = most = 0
    for line in lines:
        answer = ANSWER_LINE.search(line)
        if answer and answer.group(1) == workshop:
            held -= 1
            continue
        if '"reservation_decided"' in line:
            try:
                event = json.loads(line[line.index("{"):])
            except ValueError:
                continue
            if event.get("workshop") == workshop:
                held += 1
                most = max(most, held)
    return most, median([float(m.group(3)) for m in answers])


def measured(server: DevServer, kind: str, workshop: str, size: int) -> Burst:
    offset = server.log_path.stat().st_size
    burst = (shell_burst if kind == "shell" else package_burst)(server, workshop, size)
    burst.worker_in_flight, burst.server_ms = read_worker_log(server, offset, workshop, size)
    return burst


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 repetitions each (a few seconds)")
    parser.add_argument("--size", type=int, default=10, help="requests per burst (the seeds: 10)")
    parser.add_argument("--repeat", type=int, default=None, help="repetitions each (default 10, quick 2)")
    args = parser.parse_args(argv)
    repeat = args.repeat or (2 if args.quick else 10)
    if subprocess.run(["sh", "-c", "command -v curl"], capture_output=True).returncode != 0:
        raise SystemExit("curl is not on PATH; install it (Debian: apt-get install -y curl) to run the shell burst.")

    curl = subprocess.run(["curl", "--version"], capture_output=True, text=True, timeout=30).stdout.split()[:2]
    print(machine_line() + f", {' '.join(curl)}")
    print(load_line("before"))
    print(f"burst of {args.size} one-seat reservations, {repeat} repetitions each, fresh workshop each, "
          "alternating shell/package")
    expected = expected_summary(args.size)
    want = (expected.accepted, expected.rejected)
    results: dict[str, list[Burst]] = {"shell": [], "package": []}
    with dev_server("bench-fidelity-") as server:
        print(f"wrangler dev on port {server.port}, healthy after {server.healthy_after:.1f} s")
        measured(server, "package", "fid-warm-py", args.size)  # compile the Worker, create a first object
        measured(server, "shell", "fid-warm-sh", args.size)
        with CpuMeter(server.pgid) as cpu:
            for rep in range(repeat):
                order = ("shell", "package") if rep % 2 == 0 else ("package", "shell")
                for kind in order:
                    burst = measured(server, kind, f"fid-{kind[:2]}-{rep}", args.size)
                    results[kind].append(burst)
                    flag = "" if burst.outcome == want else f"  UNEXPECTED (want {want[0]}/{want[1]})"
                    print(f"  rep {rep + 1:2d} {kind:7s}: wall {burst.wall * 1000:7.1f} ms  spread "
                          f"{burst.spread * 1000:6.1f} ms  in flight client {burst.client_in_flight:2d} / worker log "
                          f"{burst.worker_in_flight:2d}  server {burst.server_ms:5.0f} ms  "
                          f"accepted/rejected {burst.outcome[0]}/{burst.outcome[1]}{flag}")
        print(f"during the repetitions: {cpu.line()}")

    print(load_line("after"))
    print("medians (min-max):")
    summary = {}
    for kind, bursts in results.items():
        columns = {
            "wall ms": [b.wall * 1000 for b in bursts],
            "spread ms": [b.spread * 1000 for b in bursts],
            "in flight (client)": [float(b.client_in_flight) for b in bursts],
            "in flight (worker log)": [float(b.worker_in_flight) for b in bursts],
            "server ms/request": [b.server_ms for b in bursts],
        }
        summary[kind] = {name: median(values) for name, values in columns.items()}
        print(f"  {kind:7s}: " + "   ".join(f"{name} {median(v):.1f} ({min(v):.1f}-{max(v):.1f})"
                                           for name, v in columns.items()))
    for name in summary["shell"]:
        print_ratio(f"package/shell {name}", summary["package"][name], summary["shell"][name])


if __name__ == "__main__":
    main()
