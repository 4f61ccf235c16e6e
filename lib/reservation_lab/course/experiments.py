"""The experiments part of the notebook: one workbench (one reloading dev server) per run, owned by the session,
a verdict per experiment."""

from __future__ import annotations

from collections.abc import Mapping

from reservation_lab.course.display import print_json
from reservation_lab.course.session import current
from reservation_lab.domain.checker import explain
from reservation_lab.domain.invariants import all_replayed
from reservation_lab.domain.runs import RunFolder
from reservation_lab.experiments.variants import Outcome, durable, run_experiment
from reservation_lab.experiments.workbench import Workbench
from reservation_lab.i18n import describe, message, plural
from reservation_lab.runtime.devserver import NOTHING_LEFT


async def experiment(run: RunFolder, name: str, edits: Mapping[str, str], burst_size: int, **options: bool) -> Outcome:
    """Run one experiment of the notebook (options: experiments.variants.run_experiment's `restart`, `repeat`) and
    show its verdict, the durable totals and the checker's words."""
    session = current()
    workbenches = session.workbenches  # the session owns the workbench and stops it with everything else
    workbench = workbenches.get(run.root) or workbenches.setdefault(run.root, Workbench(run, ctx=session.context))
    outcome = await run_experiment(workbench, name, edits, burst_size, **options)
    print_json(shown_verdict(outcome.verdict(), session.language))
    print_json(durable(outcome))
    if outcome.repeated and all_replayed(outcome.repeated):  # replays repeat old decisions: none is new
        print(describe(plural("invariants.all_replayed", len(outcome.repeated)), session.language))
    print(explain(outcome.history, language=session.language))
    return outcome


def stop_experiments(run: RunFolder) -> dict[str, object]:
    """Stop the experiments' dev server; say whether any process or the port is left."""
    workbench = current().workbenches.pop(run.root, None)
    if workbench is None:
        return dict(NOTHING_LEFT)
    workbench.close()
    return workbench.leftovers()


def shown_verdict(verdict: dict[str, object], language: str) -> dict[str, object]:
    """The verdict as the learner reads it: the checker's problem codes (which the check cells compare) named in
    the notebook's language."""
    codes = verdict.get("problems") or []
    return {**verdict, "problems": [message(f"problems.{code}", language) for code in codes]}  # type: ignore[union-attr]
