"""The experiments part of the notebook: one bench (one dev server) per run, owned by the session, a verdict per
experiment."""

from __future__ import annotations

from collections.abc import Mapping

from reservation_lab.course.display import print_json
from reservation_lab.course.session import current
from reservation_lab.domain.checker import explain
from reservation_lab.domain.runs import RunFolder
from reservation_lab.experiments.variants import Outcome, durable, run_experiment
from reservation_lab.experiments.workbench import Workbench


async def experiment(run: RunFolder, name: str, edits: Mapping[str, str], burst_size: int, **options: bool) -> Outcome:
    """Run one experiment of the notebook (options: experiments.variants.run_experiment's `restart`, `repeat`) and
    show its verdict, the durable totals and the checker's words."""
    benches = current().benches  # the session owns the bench and stops it with everything else
    bench = benches.get(run.root) or benches.setdefault(run.root, Workbench(run))
    outcome = await run_experiment(bench, name, edits, burst_size, **options)
    print_json(outcome.verdict())
    print_json(durable(outcome))
    print(explain(outcome.history))
    return outcome


def stop_experiments(run: RunFolder) -> dict[str, object]:
    """Stop the experiments' dev server; say whether any process or the port is left."""
    bench = current().benches.pop(run.root, None)
    if bench is None or bench.server is None:
        return {"processesLeft": 0, "portFree": True}
    bench.close()
    return bench.server.leftovers()
