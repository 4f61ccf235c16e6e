"""Grade a learner's Worker: serve it on a real `wrangler dev` and search for the smallest workload it fails.

hypothesis generates workloads (seeded: the same seed finds the same workload again) and shrinks a failing one
over real runs; each trial uses fresh workshops, so trials do not disturb each other. The search is bounded by a
number of workloads and a time budget; what it found is a `Grade`. A Worker that does not start, crashes or hangs
is a failed grade with a sentence, never a hung kernel; the server is stopped and proven gone afterwards.
"""

from __future__ import annotations

import itertools
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import FlakyFailure, NoSuchExample

from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.facts import CAPACITY
from reservation_lab.domain.reloading import ReloadingServer
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.errors import LabError
from reservation_lab.exercises.between_steps import BetweenSteps
from reservation_lab.exercises.catalog import Exercise
from reservation_lab.exercises.clients import (
    Call,
    ClientTrial,
    ClientWorkload,
    client_workloads,
    large_client_workloads,
    load_reserve,
    run_client_trial,
)
from reservation_lab.exercises.external_check import ExternalCheck
from reservation_lab.exercises.judge import Failure, Trial, run_trial
from reservation_lab.exercises.limits import BUDGET, EXAMPLES
from reservation_lab.exercises.lossy import ENDLESS, STALL
from reservation_lab.exercises.transfers import (
    Move,
    TransferTrial,
    TransferWorkload,
    large_transfer_workloads,
    run_transfer_trial,
    transfer_workloads,
)
from reservation_lab.exercises.workloads import (
    Request,
    Round,
    Workload,
    cancel_workloads,
    check_workloads,
    large_cancel_workloads,
    large_check_workloads,
    large_person_workloads,
    large_workloads,
    person_workloads,
    workloads,
)
from reservation_lab.i18n import Message
from reservation_lab.paths import WORKER_SRC
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.devserver import NOTHING_LEFT, DevServer

RELOAD_MARK = "// restarted by the grader:"
CAPACITY_LINE = "export const CAPACITY = {capacity};"  # in src/validation.js (domain.facts.CAPACITY is checked on it)
FINAL_CAPACITY = CAPACITY + 1  # the constant the final workload's real restart starts the Worker with
FINAL = Workload((Round((Request("new", 0, 3), Request("new", 0, 2), Request("twins", 1, 1)), restart=True),
                  Round((Request("replay", 0, 1), Request("new", 1, 4)))))  # after the search: a real restart
# A Worker whose external check can fail, after the search: the final workload with one check failing in round 1
# (nothing may change) and retried in round 2 beside a new request for the same last seat.
FINAL_CHECKS = Workload((Round((Request("new", 0, 3), Request("check_fails", 0, 1), Request("twins", 1, 1)),
                               restart=True),
                         Round((Request("replay", 0, 1, ref=1), Request("new", 1, 4), Request("new", 0, 1)))))
# With cancellations, after the search: an accepted reservation, then a rejected one (each in a round of its own, so
# whatever the arrival order, r1-1 holds 3 seats and r2-1 none), a real restart, twin cancels of the first beside a
# cancel of the second, then the first replayed and cancelled once more.
FINAL_CANCELS = Workload((Round((Request("new", 0, 3),)), Round((Request("new", 0, 2),), restart=True),
                          Round((Request("cancel_twins", 0, 1, ref=0), Request("cancel", 0, 1, ref=1))),
                          Round((Request("replay", 0, 4, ref=0), Request("cancel", 0, 1, ref=0)))))
# With a limit per person: p0 asks for 2 and then 1 more at once (one of them passes the limit), p1's twins take 1, a
# real restart, then p1 asks for 2 more (over the limit), p2 for 2 (within it), and p0's first request is replayed.
FINAL_PERSONS = Workload((Round((Request("new", 0, 2), Request("new", 0, 1), Request("twins", 0, 1, person=1)),
                                restart=True),
                          Round((Request("new", 0, 2, person=1), Request("new", 0, 2, person=2),
                                 Request("replay", 0, 1, ref=0)))), persons=True)
# The client exercise, after the search: every fault at least once (a stall too: a client without a timeout hangs),
# answers lost after the Worker decided, more seats asked for than the workshop has (some decisions are rejections,
# and must come back as such), two calls of the same seats one after the other on one thread (a reserve that
# remembers an earlier decision is caught), and a call the network never lets through (its reserve must raise,
# not make a decision up).
FINAL_CLIENT = ClientWorkload((Call(2, (STALL, "gateway_error")), Call(1, ("duplicate",), thread=1),
                               Call(1, ("drop_request", "delay"), thread=1),
                               Call(1, ("refuse", "drop_answer", "drop_answer"), thread=2),
                               Call(1, ("refuse", ENDLESS), thread=3)))
# The transfer exercise, after the search: two reservations in a and two in b, all fitting, the last one cancelled by
# its person; r1 moved to b with a restart between the steps (so the retry finds the first step done), r1 moved
# again by another transfer, r2 sent twice at once, r3 moved the other way: every one of these must end moved; r4,
# cancelled, must not move; once all are answered, r1 moved once more: it has moved, and says so.
FINAL_TRANSFERS = TransferWorkload(((0, 2), (0, 1), (1, 1), (1, 1)),
                                   (Move(0, restart=True), Move(0), Move(1, twins=True), Move(2), Move(3),
                                    Move(0, later=True)), cancelled=(3,))
# What the search draws from (small, large) and the final workload, by what the exercise's Worker takes.
SEARCHES = {"reservations": (workloads, large_workloads, FINAL),
            "checks": (check_workloads, large_check_workloads, FINAL_CHECKS),
            "cancels": (cancel_workloads, large_cancel_workloads, FINAL_CANCELS),
            "persons": (person_workloads, large_person_workloads, FINAL_PERSONS),
            "transfers": (transfer_workloads, large_transfer_workloads, FINAL_TRANSFERS)}


REFUSAL_LINES = 12  # of why a Worker did not start: the sentence and the build error's lines from the log


@dataclass
class Grade:
    """A grade: passed, or the smallest failing trial found; how much the Worker survived on the way."""

    exercise: str
    seed: int
    trials: int = 0
    requests: int = 0
    restarts: int = 0
    seconds: float = 0.0
    smallest: Trial | ClientTrial | TransferTrial | None = None
    refused: Failure | None = None  # the Worker did not start, or a text it must keep is gone
    out_of_time: bool = False  # the search reached its budget before its number of workloads

    @property
    def passed(self) -> bool:
        return self.smallest is None and self.refused is None

    @property
    def failure(self) -> Failure | None:
        return self.refused or (self.smallest.failure if self.smallest else None)


def grading_folder(root: Path, source: str) -> RunFolder:
    """A fresh folder for grading: the lab's Worker files, a config, `source` as src/index.js, no state."""
    if root.exists():
        shutil.rmtree(root)
    folder = create_run_folder(root)
    write_wrangler_config(folder)
    (folder.root / "src" / "index.js").write_text(source)
    return folder


class Grader:
    """One grading server in `root` (domain.reloading: started by the first grade, stopped by close()); each grade
    swaps in the Worker to judge (wrangler dev reloads it, or the server restarts on the same state when it does
    not, e.g. a Worker that does not build: the restarted server then says why) and searches with workshops no
    earlier trial used."""

    def __init__(self, root: Path, ctx: Context = QUIET) -> None:
        self.root = root
        self.ctx = ctx  # how its server's command line and its refusals are shown
        self.reloading: ReloadingServer | None = None
        self.names = itertools.count(1)
        self.reloads = 0  # the in-server restarts reload() asked for (each marks the source anew)
        self.capacity = CAPACITY  # the constant in the grading folder's src/validation.js
        self.hook: BetweenSteps | None = None  # where a transfer Worker's betweenSteps() calls (and is restarted)
        self.check: ExternalCheck | None = None  # the service the naive Worker's externalCheck() calls

    @property
    def server(self) -> DevServer | None:
        return self.reloading.server if self.reloading else None

    def leftovers(self) -> dict[str, int | bool]:
        """What is left of its server (after close(): of the one it stopped; nothing when none ran)."""
        return self.reloading.leftovers() if self.reloading else dict(NOTHING_LEFT)

    @property
    def restarts(self) -> int:
        """Restarts of the Worker: reload()s and server restarts."""
        return self.reloads + (self.reloading.restarts if self.reloading else 0)

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    def serve(self, source: str) -> None:
        """Serve `source`: a fresh grading folder and server for the first grade (and after close()), else swapped
        into the running server (restarted instead when the last final workload changed the capacity constant:
        the lab's constant comes back with it)."""
        if self.reloading is None or self.reloading.server is None:
            folder = grading_folder(self.root, source)
            self.hook = self.hook or BetweenSteps(self._restart_between_steps)
            self.check = self.check or ExternalCheck()
            # read once, at the server's start: every Worker the server is given may call them
            (folder.root / ".dev.vars").write_text(f"BETWEEN_STEPS={self.hook.url}\nEXTERNAL_CHECK={self.check.url}\n")
            self.reloading = ReloadingServer(folder, "grade", ctx=self.ctx)
            self.capacity = CAPACITY  # the lab's files, as grading_folder copied them
        elif self.capacity != CAPACITY:
            self._set_capacity(CAPACITY)
            self.reloading.index.write_text(source)
            self.reloading.restart()
            return
        self.reloading.serve(source)

    def reload(self) -> str:
        """Restart the Worker inside the running server: a changed source (a comment) makes wrangler dev rebuild
        it, and workerd drops every object (the next request runs the constructor on the stored data)."""
        assert self.reloading is not None
        self.reloads += 1
        self.reloading.serve(f"{self.reloading.index.read_text().split(RELOAD_MARK)[0]}{RELOAD_MARK} {self.reloads}\n")
        return self.base_url

    def restart(self) -> str:
        """Stop the server and start it again on the same state (the lab's step 4)."""
        assert self.reloading is not None
        self.reloading.restart()
        return self.base_url

    def _restart_between_steps(self) -> None:
        """The restart a transfer Worker's betweenSteps() asks for: on the hook's thread, so it shows nothing (the
        grade counts it; a cell's output is no place for a line a thread printed)."""
        assert self.reloading is not None
        self.reloading.restart(ctx=QUIET)

    def restart_with_another_capacity(self) -> str:
        """The final workload's real restart, with the capacity constant changed (as a course might change it
        between two deploys): the workshops that exist keep their durable capacity and counter; only a new one
        would take the new constant. An initialisation that rewrites the row when the constant changed is caught."""
        self._set_capacity(FINAL_CAPACITY)
        return self.restart()

    def _set_capacity(self, capacity: int) -> None:
        """Write the capacity constant into the grading folder's src/validation.js (`self.capacity` says which)."""
        assert self.reloading is not None
        path = self.reloading.folder.root / "src" / "validation.js"
        text, line = path.read_text(), CAPACITY_LINE.format(capacity=self.capacity)
        assert line in text, f"{path} lacks {line!r} (domain.facts.CAPACITY and worker/src/validation.js disagree)"
        path.write_text(text.replace(line, CAPACITY_LINE.format(capacity=capacity)))
        self.capacity = capacity

    def grade(self, exercise: Exercise, source: str, seed: int = 0, examples: int = EXAMPLES,
              budget: float = BUDGET, shrink: bool = True, large: bool = False) -> Grade:
        """Grade `source` (a whole src/index.js) for `exercise`: the smallest failing workload hypothesis finds
        within `examples` workloads and `budget` seconds (`shrink` False: the first one), else a pass after one
        more workload with real restarts. `large`: workloads of up to four rounds of 16 requests (12 client
        calls) instead of two rounds of six (five calls)."""
        started = time.monotonic()
        grade = Grade(exercise.name, seed)
        missing = [text for text in exercise.keeps if text not in source]
        if missing:
            grade.refused = Failure("removed", Message("exercises.class_removed", {"text": missing[0]}), 0)
            return grade
        if exercise.client:
            return self._grade_client(grade, source, started, examples, budget, shrink, large)
        if not self._served(grade, source):
            return grade
        restarts = self.restarts
        try:  # the budget starts with the search: a slow server start (a loaded machine) leaves it whole
            self._search(grade, time.monotonic() + budget, examples, shrink, exercise, large)
        finally:
            grade.seconds, grade.restarts = time.monotonic() - started, self.restarts - restarts
        return grade

    def _grade_client(self, grade: Grade, source: str, started: float, examples: int, budget: float,
                      shrink: bool, large: bool = False) -> Grade:
        """The client exercise: the learner's reserve() (`source`, a Python module) against the lab's own Worker
        through a lossy network; a module that does not load, or has no reserve(), is a refusal that says why."""
        try:
            reserve = load_reserve(source, "exercises/client.py")
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 - whatever the learner's module raises on import (SystemExit
            # too) says why; Run All goes on
            reason = f"{type(error).__name__}: {error}" if not isinstance(error, AttributeError) else "reserve"
            key = "exercises.class_no_reserve" if isinstance(error, AttributeError) else "exercises.class_client_fails"
            grade.refused = Failure("does_not_start", Message(key, {"reason": reason}), 0)
            return grade
        if not self._served(grade, (WORKER_SRC / "index.js").read_text()):
            return grade

        def trial(workload: ClientWorkload) -> ClientTrial:
            return run_client_trial(reserve, workload, self.base_url, f"t{next(self.names)}")

        try:
            strategy = large_client_workloads if large else client_workloads
            self._find(grade, time.monotonic() + budget, examples, shrink, strategy, trial, FINAL_CLIENT, trial)
        finally:
            grade.seconds = time.monotonic() - started
        return grade

    def _served(self, grade: Grade, source: str) -> bool:
        """Serve `source`; when its server does not start, the grade is refused with the first line of why."""
        try:
            self.serve(source)
        except LabError as error:
            self.close()
            lines = error.localized(self.ctx.language).splitlines()  # the sentence, then the log's last lines
            reason = "\n".join(lines[:REFUSAL_LINES])
            grade.refused = Failure("does_not_start", Message("exercises.class_does_not_start", {"reason": reason}), 0)
            return False
        return True

    def _search(self, grade: Grade, deadline: float, examples: int, shrink: bool, exercise: Exercise,
                large: bool = False) -> None:
        small, larger, last = SEARCHES[exercise.search]
        strategy = larger if large else small
        if exercise.transfers:
            def transfer_trial(workload: TransferWorkload) -> TransferTrial:
                assert self.hook is not None
                return run_transfer_trial(workload, lambda: self.base_url, f"t{next(self.names)}", self.hook)

            self._find(grade, deadline, examples, shrink, strategy, transfer_trial, last, transfer_trial)
            return
        check = self.check if exercise.checks else None
        self._find(grade, deadline, examples, shrink, strategy,
                   lambda workload: run_trial(workload, self.base_url, f"t{next(self.names)}", self.reload,
                                              exercise.cancels, check),
                   last,  # passed the search: one more workload, with real restarts of the server
                   lambda workload: run_trial(workload, self.base_url, f"t{next(self.names)}",
                                              self.restart_with_another_capacity, exercise.cancels, check))

    def _find(self, grade: Grade, deadline: float, examples: int, shrink: bool, strategy: Any,
              trial: Callable[[Any], Trial | ClientTrial | TransferTrial], last: Any,
              last_trial: Callable[[Any], Trial | ClientTrial | TransferTrial]) -> None:
        """hypothesis's search for the smallest workload of `strategy` that `trial` fails, within `examples`
        workloads and until `deadline`; when none fails, `last_trial(last)` decides."""
        def fails(workload: Any) -> bool:
            if time.monotonic() > deadline:
                grade.out_of_time = True
                return False  # the budget is spent: hypothesis ends the search with what it has
            done = trial(workload)
            grade.trials, grade.requests = grade.trials + 1, grade.requests + done.requests
            if done.failure is None:
                return False
            if grade.smallest is None or _size(workload) <= _size(grade.smallest.workload):
                grade.smallest = done
            return True

        phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
        try:
            find(strategy, fails, random=random.Random(grade.seed),
                 settings=settings(max_examples=examples, database=None, deadline=None, phases=phases,
                                   suppress_health_check=list(HealthCheck)))
        except FlakyFailure:
            pass  # a concurrency failure need not repeat (or the budget ended): the failing trial recorded stands
        except NoSuchExample:
            final = last_trial(last)
            grade.trials, grade.requests = grade.trials + 1, grade.requests + final.requests
            grade.smallest = final if final.failure else None

    def close(self) -> None:
        """Stop the server (proven gone); the next grade starts a new one."""
        if self.hook is not None:  # first: a restart it began would start a server after the one stopped below
            self.hook.reset()
            self.hook.close()
            self.hook = None
        if self.check is not None:
            self.check.close()
            self.check = None
        if self.reloading is not None:
            self.reloading.close()


def _size(workload: Workload | ClientWorkload | TransferWorkload) -> tuple[int, int]:
    return (len(workload.calls) if isinstance(workload, ClientWorkload) else len(workload.rounds)), workload.size


def grade_source(exercise: Exercise, source: str, root: Path, seed: int = 0, examples: int = EXAMPLES,
                 budget: float = BUDGET, shrink: bool = True, large: bool = False) -> Grade:
    """Grade `source` for `exercise` on a server of its own in `root`, stopped afterwards."""
    grader = Grader(root)
    try:
        return grader.grade(exercise, source, seed, examples, budget, shrink, large)
    finally:
        grader.close()
