"""The experiments part of the notebook: one bench (one dev server) per run, a verdict per experiment."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from reservation_lab.course.display import print_json
from reservation_lab.domain.checker import explain
from reservation_lab.domain.config import RunFolder
from reservation_lab.i18n import current_language
from reservation_lab.race.experiments import Bench, Outcome, durable, run_experiment

_BENCHES: dict[Path, Bench] = {}


async def experiment(run: RunFolder, name: str, edits: Mapping[str, str], burst_size: int, **options: bool) -> Outcome:
    """Run one experiment of the notebook (options: race.experiments.run_experiment's `restart`, `repeat`) and
    show its verdict, the durable totals and the checker's words."""
    bench = _BENCHES.get(run.root) or _BENCHES.setdefault(run.root, Bench(run))
    outcome = await run_experiment(bench, name, edits, burst_size, **options)
    print_json(outcome.verdict())
    print_json(durable(outcome))
    print(explain(outcome.history, language=current_language()))
    return outcome


def close_all() -> None:
    """Stop every experiments server of this kernel (a new run starts with none)."""
    while _BENCHES:
        _, bench = _BENCHES.popitem()
        bench.close()


def stop_experiments(run: RunFolder) -> dict[str, object]:
    """Stop the experiments' dev server; say whether any process or the port is left."""
    bench = _BENCHES.pop(run.root, None)
    if bench is None or bench.server is None:
        return {"processesLeft": 0, "portFree": True}
    bench.close()
    return bench.server.leftovers()
