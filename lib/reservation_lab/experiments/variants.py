"""An experiment: one variant of the learner's Worker on the workbench, a burst on a fresh workshop, the durable
status, and the serial-order checker's verdict (after a restart, or on the same burst sent again, if asked).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reservation_lab.domain.burst import request_ids, send_burst
from reservation_lab.domain.checker import CheckResult, check_history
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.decisions import Decision
from reservation_lab.domain.invariants import durable_view
from reservation_lab.domain.routes import fresh_workshop
from reservation_lab.experiments.workbench import Workbench

BURST_ATTEMPTS = 2  # an experiment's 500s are its result; one retry shows that a replay does not mend them


@dataclass
class Outcome:
    """What one experiment showed: the first burst's answers and the durable status before and after it, the
    status after a restart (`restart`) or the answers and status of the same burst sent again (`repeat`), and the
    checker's verdict on what the experiment is about (the restart's status, or the repeated burst)."""

    name: str
    decisions: list[Decision]
    before: dict[str, Any]
    after: dict[str, Any]
    history: CheckResult
    after_restart: dict[str, Any] | None = None
    repeated: list[Decision] = field(default_factory=list)
    after_repeat: dict[str, Any] | None = None

    @property
    def problem_keys(self) -> list[str]:
        """The kinds of contradiction the checker found (e.g. overbooking, same_reserved), each once."""
        return sorted({message.key.removeprefix("checker.") for message in self.history.problem_messages})

    def verdict(self) -> dict[str, Any]:
        """The experiment's facts, in a form a check cell compares exactly."""
        answers = self.repeated or self.decisions
        facts: dict[str, Any] = {
            "accepted": sum(d.status == "accepted" for d in self.decisions),
            "rejected": sum(d.status == "rejected" for d in self.decisions),
            "noDecision": sum(d.status not in ("accepted", "rejected") for d in self.decisions),
            "reserved": (self.after_restart or self.after_repeat or self.after)["reserved"],
            "serialOrder": self.history.ok,
            "problems": self.problem_keys,
        }
        if self.repeated:
            facts["replayed"] = sum(d.replayed for d in answers)
            facts["seatsSpentByRepeat"] = (self.after_repeat or self.after)["reserved"] - self.after["reserved"]
        return facts


async def run_experiment(
    bench: Workbench,
    name: str,
    edits: Mapping[str, str],
    burst_size: int,
    restart: bool = False,
    repeat: bool = False,
) -> Outcome:
    """One experiment on a fresh workshop `exp-<name>-<n>`: serve the variant, burst, read the durable status.

    `restart`: then restart the runtime and read the status again (the checker judges that status).
    `repeat`: then send the same burst again, with the same requestIds.
    """
    workshop = fresh_workshop(f"exp-{name}")
    server = bench.serve(edits)
    ids = request_ids(burst_size, "request")
    with LabClient(server.base_url) as client:
        before = client.status(workshop)
        decisions = await send_burst(server.base_url, workshop, ids=ids, max_attempts=BURST_ATTEMPTS)
        after = client.status(workshop)
    outcome = Outcome(name, decisions, before, after, check_history(decisions, before, after))
    if restart:
        server = bench.restart()
        with LabClient(server.base_url) as client:
            outcome.after_restart = client.status(workshop)
        outcome.history = check_history(decisions, before, outcome.after_restart)
    if repeat:
        outcome.repeated = await send_burst(server.base_url, workshop, ids=ids, max_attempts=BURST_ATTEMPTS)
        with LabClient(server.base_url) as client:
            outcome.after_repeat = client.status(workshop)
        outcome.history = check_history(outcome.repeated, after, outcome.after_repeat, prior=decisions)
    return outcome


def durable(outcome: Outcome) -> dict[str, int]:
    """The durable totals the experiment ended with (after the restart or the repeated burst, if there was one)."""
    return durable_view(outcome.after_restart or outcome.after_repeat or outcome.after)
