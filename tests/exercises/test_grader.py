"""The grader on a real wrangler dev: every reference solution passes, every stub fails with the class its exercise
is about (the smallest counterexample where it is known), every plausible wrong answer fails."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from reservation_lab.domain.edits import apply_edits
from reservation_lab.exercises.catalog import exercise, exercises
from reservation_lab.exercises.clients import Call, ClientWorkload
from reservation_lab.exercises.grader import FINAL_CAPACITY, Grade, Grader
from reservation_lab.exercises.transfers import Move, TransferWorkload
from reservation_lab.exercises.workloads import Request, Round
from reservation_lab.runtime.toolchain import find_toolchain

IN_THE_QUICK_LOOP = ("guard", "client")  # the other references: ./lab mark's solved notebook, and -m stress
WRONG = yaml.safe_load((Path(__file__).parent / "wrong_answers.yml").read_text())
WRONG_ANSWERS = [pytest.param(name, wrong, marks=[pytest.mark.stress] if answer.get("stress") else [])
                 for name, answers in WRONG.items() for wrong, answer in answers.items()]
UNBOUNDED = 600.0  # seconds: a grade here is bounded by its workloads; time depends on the machine's load, and
# the class drill beside these tests made one trial ten times slower (45 s for one shrink that takes 4.5 s alone)
SMALLEST = {  # the smallest failing workload of a stub, as hypothesis shrinks it (seed 1; naive and init: see below)
    "guard": (Round((Request("new", 0, 1), Request("new", 0, 4))),),
    "replay": (Round((Request("twins", 0, 1),)),),
    "cancel": (Round((Request("new", 0, 1),)), Round((Request("cancel", 0, 1), Request("cancel", 0, 1)))),
    "person": (Round((Request("new", 0, 3),)),),  # one person, 3 seats: over the limit of 2 in one go
    "client": ClientWorkload((Call(1, ("drop_request",)),)),  # one reservation whose first request is lost
    "transfer": TransferWorkload(((0, 1),), (Move(0, twins=True),)),  # one seat moved by twins: booked twice
}


def wrong_answer(name: str, wrong: str) -> str:
    return apply_edits(exercise(name).stub(), {e["old"]: e["new"] for e in WRONG[name][wrong]["edits"]})


@pytest.fixture(scope="module")
def grader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grader]:
    """One grading server for the module: each grade swaps its Worker in (wrangler dev reloads it)."""
    grader = Grader(tmp_path_factory.mktemp("grading"))
    yield grader
    grader.close()
    assert grader.server is None


def assert_failed(grade: Grade, kind: str | list[str]) -> None:
    """Failed, with the class the wrong answer is about (one of them, where the order in which a round's requests
    arrive decides which failure shows first)."""
    assert not grade.passed, f"{grade.exercise}: passed {grade.trials} workloads"
    assert grade.failure is not None
    if kind != "any":
        sent = getattr(grade.smallest, "sent", []) + getattr(grade.smallest, "booked", [])
        # a 500 names what the Worker threw (wrangler dev's error page), for the next run that meets one
        assert grade.failure.kind in ([kind] if isinstance(kind, str) else kind), (grade.failure.message, [
            one.answer for one in sent if getattr(one, "code", None) == 500])


def test_stubs_solutions_and_wrong_answers_are_javascript_or_python(tmp_path: Path) -> None:
    """The Workers' files pass `node --check`; the client's compile as Python."""
    node = str(find_toolchain().node)
    sources = {(name, f"{name}-{kind}"): getattr(exercise(name), kind)() for name in exercises()
               for kind in ("stub", "solution")}
    sources.update({(name, f"{name}-{wrong}"): wrong_answer(name, wrong)
                    for name, answers in WRONG.items() for wrong in answers})
    for (name, label), source in sources.items():
        if exercise(name).client:
            compile(source, label, "exec")
            continue
        path = tmp_path / f"{label}.mjs"
        path.write_text(source)
        checked = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, f"{label}: {checked.stderr}"
    for name in exercises():
        stub = exercise(name).stub()
        assert f">>> EXERCISE {name}" in stub and f"<<< EXERCISE {name} <<<" in stub
        assert exercise(name).solution() != stub


@pytest.mark.parametrize("examples", [2, pytest.param(6, marks=pytest.mark.stress)])
@pytest.mark.parametrize("name", [name if name in IN_THE_QUICK_LOOP else pytest.param(name, marks=pytest.mark.stress)
                                  for name in exercises()])
def test_the_reference_solution_passes(grader: Grader, name: str, examples: int) -> None:
    """Two generated workloads, for guard (the capacity constant's change and its restore) and the client in
    `./lab test`, where `./lab mark` grades every reference again, in a notebook (tests/teaching/test_marking.py:
    ana); every reference, also with six, under `-m stress`."""
    grade = grader.grade(exercise(name), exercise(name).solution(), seed=3, examples=examples, budget=UNBOUNDED)
    assert grade.passed, grade.failure and grade.failure.message
    assert grade.trials == examples + 1 and grade.requests > 2 * examples  # and the workload with a real restart
    if exercise(name).client:  # the lab's Worker, through the lossy network: the final workload restarts nothing
        return
    if exercise(name).transfers:  # the final workload restarts the server between a transfer's steps
        assert grade.restarts >= 1
        return
    assert grade.restarts >= 1  # at least the real one
    # that restart changed the capacity constant (the workshops kept theirs); the next grade gets the lab's back
    validation = grader.root / "src" / "validation.js"
    assert f"export const CAPACITY = {FINAL_CAPACITY};" in validation.read_text()
    grader.serve(exercise(name).stub())
    assert "export const CAPACITY = 4;" in validation.read_text()


@pytest.mark.parametrize("name", list(exercises()))
def test_the_stub_fails_with_its_class_and_the_smallest_counterexample(grader: Grader, name: str) -> None:
    """guard and replay fail the same way whatever the timing: their smallest workload is exact. naive's lost update
    needs two requests inside one 10-19 ms await, which a busy machine may not give every candidate, so its shrinking
    can stop earlier (a loaded run ended at two rounds): that the failing round has two answered requests of one
    workshop is asserted. init's
    shrinking needs a restart in every step (about 25 s): only its class here; bench/bench_grade.py and the committed
    notebooks show its smallest workload (one reservation, then a restart)."""
    shrink = name != "init"
    grade = grader.grade(exercise(name), exercise(name).stub(), seed=1, examples=30, budget=UNBOUNDED, shrink=shrink)
    # naive: when more than two requests fall into one await, the lost updates also accept more seats than there are,
    # and overbooking is the headline (a fresh-clone run shrank to 9 seats accepted of 4)
    assert_failed(grade, [exercise(name).breaks, "overbooking"] if name == "naive" else exercise(name).breaks)
    assert grade.smallest is not None
    if exercise(name).client or exercise(name).transfers:
        assert grade.smallest.workload == SMALLEST[name]
        return
    rounds = grade.smallest.workload.rounds
    if name in SMALLEST:
        assert rounds == SMALLEST[name]
    elif name == "naive":  # a lost update takes two requests of one workshop answered in the same round
        failing = [one.workshop for one in grade.smallest.sent
                   if one.round == grade.smallest.failure.round and one.valid and one.code in (201, 409)]
        assert max(failing.count(workshop) for workshop in failing) >= 2, rounds


@pytest.mark.parametrize(("name", "wrong"), WRONG_ANSWERS)
def test_a_plausible_wrong_answer_fails(grader: Grader, name: str, wrong: str) -> None:
    """30 generated workloads, or the few an answer names (`examples`: one only the final workload catches)."""
    examples = WRONG[name][wrong].get("examples", 30)
    grade = grader.grade(exercise(name), wrong_answer(name, wrong), seed=2, examples=examples, budget=UNBOUNDED,
                         shrink=False, large=WRONG[name][wrong].get("large", False))
    assert_failed(grade, WRONG[name][wrong]["breaks"])


@pytest.mark.stress
@pytest.mark.parametrize("name", list(exercises()))
def test_large_workloads_pass_the_reference_and_fail_the_stub(grader: Grader, name: str) -> None:
    """The `large` search (two to four rounds of 6-16 requests in three workshops; twelve client calls): eight of its
    workloads pass each reference solution, and each stub still fails with its class."""
    passed = grader.grade(exercise(name), exercise(name).solution(), seed=4, examples=8, budget=UNBOUNDED, large=True)
    assert passed.passed, passed.failure and passed.failure.message
    failed = grader.grade(exercise(name), exercise(name).stub(), seed=4, examples=30, budget=UNBOUNDED, shrink=False,
                          large=True)
    # a dozen requests at once: the naive Worker's lost updates also accept more seats than there are (the headline);
    # eight transfers at once: a seat the transfer stub lost and one it created can add up to none, and an answer
    # then says the wrong place
    also = {"naive": ["overbooking"], "transfer": ["transfer_answer"]}.get(name, [])
    assert_failed(failed, [exercise(name).breaks, *also])


@pytest.mark.parametrize(("source", "key"), [("def reserve(:\n", "exercises.class_client_fails"),
                                             ("def book(http, workshop, seats):\n    return {}\n",
                                              "exercises.class_no_reserve")])
def test_a_client_that_does_not_load_is_a_failed_grade_with_a_sentence(grader: Grader, source: str,
                                                                       key: str) -> None:
    grade = grader.grade(exercise("client"), source)
    assert grade.refused is not None and grade.refused.kind == "does_not_start"
    assert grade.refused.message.key == key and grade.trials == 0


def test_a_worker_that_does_not_build_is_a_failed_grade_with_a_sentence(tmp_path: Path) -> None:
    grader = Grader(tmp_path / "broken")
    grade = grader.grade(exercise("guard"), exercise("guard").solution().replace("reserve(requestId", "reserve(("))
    assert grade.failure is not None and grade.failure.kind == "does_not_start"
    assert grader.server is None
    reason = str(grade.failure.message.values["reason"])
    assert "reserve((" in reason or "src/index.js:" in reason, reason  # the build error itself, not only "see why:"


def test_a_failed_check_changes_nothing_and_its_retry_decides_anew(grader: Grader) -> None:
    """The naive reference on the real runtime, through the grader's check service: the request whose check fails
    is answered 503 check_failed and leaves the status as it was; its retry in the next round is a new decision (not
    a replay); the judge finds nothing wrong. The stub, which reads before the same check, is just as clean there:
    a failed check is not what it gets wrong."""
    from reservation_lab.exercises.judge import read_statuses, run_trial
    from reservation_lab.exercises.workloads import Workload

    workload = Workload((Round((Request("check_fails", 0, 2),)),
                         Round((Request("replay", 0, 2, ref=0),))))
    for prefix, source in (("failed-check-solution", exercise("naive").solution()),
                           ("failed-check-stub", exercise("naive").stub())):
        grader.serve(source)
        assert grader.check is not None
        trial = run_trial(workload, grader.base_url, prefix, grader.reload, check=grader.check)
        assert trial.failure is None, trial.failure
        first, retry = trial.sent
        assert (first.code, first.answer) == (503, {"error": "check_failed"})
        assert retry.code == 201 and retry.answer["replayed"] is False and retry.answer["reserved"] == 2
        status = read_statuses(grader.base_url, [f"{prefix}-0"])
        assert isinstance(status, dict) and status[f"{prefix}-0"]["acceptedRequests"] == 1
        assert status[f"{prefix}-0"]["rejectedRequests"] == 0
