"""How long the serial-order checker takes for 100,000 responses, against merely parsing their JSON.

Run (with the course's venv, where reservation_lab is installed): python bench/bench_checker.py [--responses N]
Prints, for a valid and an invalid history, the best of R runs (time.perf_counter) of json.loads
(the baseline) and of check_history, and the ratio check/baseline. No time is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

from reservation_lab.domain.checker import check_history


def serial_history(size: int, capacity: int, seed: int = 1) -> tuple[list[dict[str, Any]], int]:
    """Answers of `size` requests (1-4 seats) decided one at a time, shuffled into arrival order."""
    rng = random.Random(seed)
    reserved, answers = 0, []
    for i in range(1, size + 1):
        seats = rng.randint(1, 4)
        accepted = reserved + seats <= capacity
        reserved += seats if accepted else 0
        answers.append({"workshop": "bench", "requestId": f"request-{i}", "seats": seats,
                        "status": "accepted" if accepted else "rejected", "capacity": capacity,
                        "reserved": reserved, "replayed": False})
    rng.shuffle(answers)
    return answers, reserved


def best_of(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--capacity", type=int, default=150_000)
    args = parser.parse_args(argv)

    answers, end = serial_history(args.responses, args.capacity)
    accepted = sum(a["status"] == "accepted" for a in answers)
    before = {"capacity": args.capacity, "reserved": 0, "acceptedRequests": 0, "rejectedRequests": 0,
              "acceptedSeats": 0}
    after = {"capacity": args.capacity, "reserved": end, "acceptedRequests": accepted,
             "rejectedRequests": len(answers) - accepted, "acceptedSeats": end}
    broken = [dict(a) for a in answers]  # a lost update: one accepted answer repeats another's reserved
    firsts = sorted((a for a in broken if a["status"] == "accepted"), key=lambda a: a["reserved"])[:2]
    firsts[1]["reserved"] = firsts[0]["reserved"]
    print(f"{args.responses:,} responses, capacity {args.capacity:,}: {accepted:,} accepted, "
          f"{len(answers) - accepted:,} rejected; best of {args.repeat}")
    for label, history in (("valid", answers), ("invalid", broken)):
        text = json.dumps(history)
        parse, parsed = best_of(args.repeat, lambda text=text: json.loads(text))
        check, result = best_of(args.repeat, lambda parsed=parsed: check_history(parsed, before, after))
        verdict = "ok" if result.ok else f"not ok: {result.problem}"
        print(f"{label:>8}: parse {parse * 1000:7.1f} ms   check {check * 1000:7.1f} ms   "
              f"check/parse {check / parse:4.2f}   ({verdict})")


if __name__ == "__main__":
    main()
