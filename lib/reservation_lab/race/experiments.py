"""Experiments: change one thing in the learner's `src/index.js`, run a burst on the real runtime, get a verdict.

One `wrangler dev` serves every experiment of a run, from `<run>/experiments/` (its own SQLite state). A variant
is the run's own index.js with a few exact text replacements; writing it makes wrangler dev reload (about 0.7 s
here), and each experiment uses a workshop of its own, so each starts from a fresh object and fresh tables.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reservation_lab.domain.burst import Decision, request_ids, send_burst
from reservation_lab.domain.checker import CheckResult, check_history
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.config import RunFolder, create_run_folder, write_wrangler_config
from reservation_lab.domain.invariants import durable_view
from reservation_lab.domain.routes import fresh_workshop
from reservation_lab.errors import LabError
from reservation_lab.runtime.devserver import RELOAD_LINE, DevServer, start_dev_server

RELOAD_WAIT = 10.0  # seconds to wait for wrangler dev's own reload before restarting it on the same state
BURST_ATTEMPTS = 2  # an experiment's 500s are its result; one retry shows that a replay does not mend them


@dataclass
class Outcome:
    """What one experiment showed: the answers, the durable status, and the checker's verdict."""

    name: str
    decisions: list[Decision]
    before: dict[str, Any]
    after: dict[str, Any]
    history: CheckResult
    after_restart: dict[str, Any] | None = None
    repeated: list[Decision] = field(default_factory=list)

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
            "reserved": (self.after_restart or self.after)["reserved"],
            "serialOrder": self.history.ok,
            "problems": self.problem_keys,
        }
        if self.repeated:
            facts["replayed"] = sum(d.replayed for d in answers)
            facts["seatsSpentByRepeat"] = self.after["reserved"] - self.before["reserved"]
        return facts


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it over `path` (readers see old or new)."""
    temporary = path.with_name(f".{path.name}.writing")
    temporary.write_text(text)
    os.replace(temporary, path)


def apply_edits(source: str, edits: Mapping[str, str]) -> str:
    """`source` with each `old` text replaced by its `new` one; each old text must occur exactly once."""
    for old, new in edits.items():
        count = source.count(old)
        if count != 1:
            raise LabError("errors.edit_not_once", text=repr(old), count=count)
        source = source.replace(old, new)
    return source


class Bench:
    """The experiments' own run folder and dev server (started on first use, stopped by close())."""

    def __init__(self, run: RunFolder, port: int = 0, reload_wait: float = RELOAD_WAIT) -> None:
        self.run = run
        self.port = port
        self.reload_wait = reload_wait
        self.restarts = 0  # how often wrangler dev missed a change and was restarted instead
        self.folder = create_run_folder(run.root / "experiments", name=run.name)
        write_wrangler_config(self.folder)
        self.server: DevServer | None = None

    def learners_files(self) -> str:
        """Copy the run's Worker files (as the cells wrote them, with the learner's edits); return its index.js."""
        for source in (self.run.root / "src").glob("*.js"):
            if source.name != "index.js":
                shutil.copyfile(source, self.folder.root / "src" / source.name)
        return (self.run.root / "src" / "index.js").read_text()

    def serve(self, edits: Mapping[str, str]) -> DevServer:
        """Serve the learner's index.js with `edits` applied (none: as shipped).

        A changed file is written atomically (a build never sees half of it) and wrangler dev reloads it; if no
        reload is reported within `reload_wait` seconds (its file watcher polls and can miss or lag a change on
        a busy machine), the server is restarted on the same state, which serves the file as it is now.
        """
        index = self.folder.root / "src" / "index.js"
        variant = apply_edits(self.learners_files(), edits)
        if self.server is None:
            write_atomically(index, variant)
            self.server = start_dev_server(self.folder, port=self.port, log_name="experiments.log")
        elif index.read_text() != variant:
            mark = self.server.log_size()
            write_atomically(index, variant)
            if not self.server.wait_for_log(RELOAD_LINE, since=mark, timeout=self.reload_wait):
                self.restarts += 1
                self.restart()
        return self.server

    def restart(self) -> DevServer:
        """Stop the experiments' server and start it again on the same state (the constructor runs again)."""
        if self.server is not None:
            self.server.stop()
        self.server = start_dev_server(self.folder, port=self.port, log_name="experiments-restarted.log")
        return self.server

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()


async def run_experiment(
    bench: Bench,
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
            again = client.status(workshop)
        outcome.history = check_history(outcome.repeated, after, again, prior=decisions)
        outcome.before, outcome.after = after, again
    return outcome


def durable(outcome: Outcome) -> dict[str, int]:
    """The durable totals the experiment ended with (after the restart, if there was one)."""
    return durable_view(outcome.after_restart or outcome.after)
