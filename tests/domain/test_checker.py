"""The serial-order checker: hand-made histories, model-generated ones (hypothesis), mutations, and scale."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reservation_lab.domain.checker import CheckResult, Step, check_history, explain
from reservation_lab.domain.decisions import Attempt, Decision
from reservation_lab.errors import LabError
from tests.support import CAPACITY, acc, body, rej, status

# --- a serial model of the Durable Object -------------------------------------------------------------------------


def serial_run(capacity: int, start: int, requests: list[tuple[str, int]]) -> tuple[list[dict[str, Any]], int]:
    """Answer the requests one at a time, exactly like the object: first decisions are logged, repeats replay."""
    reserved, log, answers = start, {}, []
    for request_id, seats in requests:
        if request_id in log:
            answers.append({**log[request_id], "replayed": True})
            continue
        accepted = reserved + seats <= capacity
        if accepted:
            reserved += seats
        body = {"workshop": "lab", "requestId": request_id, "seats": seats,
                "status": "accepted" if accepted else "rejected", "capacity": capacity, "reserved": reserved,
                "replayed": False}
        log[request_id] = body
        answers.append(body)
    return answers, reserved


def first_decisions(answers: list[dict[str, Any]]) -> dict[str, tuple[str, int, int]]:
    return {a["requestId"]: (a["status"], a["reserved"], a["seats"]) for a in answers if not a["replayed"]}


def replay_steps(result: CheckResult, capacity: int, start: int) -> dict[str, tuple[str, int, int]]:
    """Feed the checker's order back through the model and return each request's decision."""
    answers, _ = serial_run(capacity, start, [(step.request_id, step.seats) for step in result.steps])
    return first_decisions(answers)


def as_decision(answer: dict[str, Any]) -> Decision:
    """The Decision that send_burst would have built from this answer."""
    if "status" not in answer:
        return Decision(answer["requestId"], answer["seats"], None, {},
                        [Attempt(0.0, 0.1, None, "ConnectTimeout")])
    code = 201 if answer["status"] == "accepted" else 409
    return Decision(answer["requestId"], answer["seats"], code, dict(answer), [Attempt(0.0, 0.1, code)])


# --- hand-made histories ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_one_seat_burst_of_ten_in_any_arrival_order(seed: int) -> None:
    answers, end = serial_run(CAPACITY, 0, [(f"request-{i}", 1) for i in range(1, 11)])
    arrived = answers[:]
    random.Random(seed).shuffle(arrived)
    result = check_history(arrived, status(0), status(4, 4, 6))
    assert result.ok, result.problem
    assert result.problem is None and result.problems == []
    assert result.order[:4] == ["request-1", "request-2", "request-3", "request-4"]
    assert sorted(result.order[4:]) == sorted(f"request-{i}" for i in range(5, 11))
    assert (result.accepted, result.rejected, result.start, result.end) == (4, 6, 0, 4)
    assert replay_steps(result, CAPACITY, 0) == first_decisions(answers)
    assert explain(result).startswith("One serial order explains all answers: the counter goes from 0 to 4")


def test_mixed_seat_sizes() -> None:
    requests = [("request-1", 2), ("request-2", 3), ("request-3", 1), ("request-4", 4), ("request-5", 1),
                ("request-6", 2)]
    answers, end = serial_run(CAPACITY, 0, requests)
    assert end == 4
    result = check_history(list(reversed(answers)), status(0), status(4, 3, 3))
    assert result.ok, result.problem
    assert [s.request_id for s in result.steps if s.status == "accepted"] == ["request-1", "request-3", "request-5"]
    assert replay_steps(result, CAPACITY, 0) == first_decisions(answers)


def test_decision_objects_are_accepted_like_dicts() -> None:
    answers, _ = serial_run(CAPACITY, 0, [(f"request-{i}", 1) for i in range(1, 7)])
    mixed = [as_decision(a) if i % 2 else a for i, a in enumerate(answers)]
    result = check_history(mixed, status(0), status(4, 4, 2))
    assert result.ok, result.problem
    assert replay_steps(result, CAPACITY, 0) == first_decisions(answers)


def test_lost_update_names_both_requests() -> None:
    history = [acc("request-3", 1), acc("request-7", 1), acc("request-1", 2)]
    result = check_history(history, status(0))
    assert not result.ok and result.order == []
    assert result.problem.startswith("request-3 and request-7 both report reserved=1")
    assert "lost update" in result.problem


def test_overlapping_accepts_are_a_lost_update() -> None:
    history = [acc("request-1", 2, seats=2), acc("request-2", 3, seats=2)]
    result = check_history(history, status(0))
    assert not result.ok
    assert result.problem == ("request-2 moved the counter from 1 to 3, but request-1 had already taken it to 2 "
                              "(a lost update: the two reservations overlap)")


def test_overbooking() -> None:
    history = [acc(f"request-{i}", i) for i in range(1, 6)]
    result = check_history(history, status(0))
    assert not result.ok
    assert result.problem == "request-5 was accepted with reserved=5, above the capacity of 4 (overbooking)"


def test_gap_in_the_chain() -> None:
    result = check_history([acc("request-1", 1), acc("request-2", 3)], status(0))
    assert not result.ok
    assert result.problem == ("nothing explains how reserved went from 1 to 2: request-1 left it at 1, then "
                              "request-2 moved it from 2 to 3 (a gap)")


def test_false_rejection() -> None:
    history = [acc("request-1", 1), acc("request-2", 2), rej("request-5", 2)]
    result = check_history(history, status(0))
    assert not result.ok
    assert result.problem == "request-5 was rejected at reserved=2 although 1 seat fit (capacity 4; a false rejection)"


def test_rejection_at_a_state_that_never_existed() -> None:
    history = [acc("request-1", 1), acc("request-2", 2), acc("request-3", 4, seats=2), rej("request-5", 3, seats=2)]
    result = check_history(history, status(0))
    assert not result.ok
    assert result.problem == ("request-5 saw reserved=3, a state that never existed "
                              "(between the states 2 and 4)")


def test_rejection_above_the_last_state() -> None:
    result = check_history([acc("request-1", 1), rej("request-2", 4, seats=4)], status(0))
    assert not result.ok
    assert result.problem.startswith("request-2 saw reserved=4, a state that never existed (above the last state 1)")


def test_rejections_are_placed_right_after_the_state_they_saw() -> None:
    history = [rej("request-9", 4), acc("request-1", 3, seats=3), acc("request-2", 4)]
    result = check_history(history, status(0))
    assert result.ok, result.problem
    assert result.order == ["request-1", "request-2", "request-9"]
    result = check_history([acc("request-6", 4), rej("request-5", 3, seats=2)], status(3, 1))
    assert result.ok, result.problem
    assert result.order == ["request-5", "request-6"]


def test_identical_replay_is_fine_and_listed_once() -> None:
    history = [rej("request-2", 1, seats=4, replayed=True), acc("request-1", 1), acc("request-1", 1, replayed=True),
               rej("request-2", 1, seats=4)]
    result = check_history(history, status(0), status(1, 1, 1))
    assert result.ok, result.problem
    assert result.order == ["request-1", "request-2"]


def test_bad_replay() -> None:
    history = [acc("request-1", 1), acc("request-2", 2), rej("request-1", 4, replayed=True)]
    result = check_history(history, status(0))
    assert not result.ok
    assert result.problem == ("request-1's replay repeats a different decision: rejected with reserved=4 for 1 seat, "
                              "but the first answer was accepted with reserved=1 for 1 seat")


def test_replay_whose_first_answer_was_lost_counts_as_the_decision() -> None:
    """A retry after a transport error gets the replay: it is this burst's decision of that request."""
    history = [acc("request-1", 1), acc("request-2", 2, replayed=True), rej("request-3", 2, seats=3)]
    result = check_history(history, status(0), status(2, 2, 1))
    assert result.ok, result.problem
    assert result.order == ["request-1", "request-2", "request-3"]


def test_replays_of_decisions_from_before_the_burst() -> None:
    prior = [acc("request-1", 1)]
    history = [acc("request-1", 1, replayed=True), acc("request-2", 2)]
    result = check_history(history, status(1, 1), status(2, 2), prior=prior)
    assert result.ok, result.problem
    assert result.order == ["request-2"]
    bad = check_history([acc("request-1", 2, replayed=True)], status(1, 1), prior=prior)
    assert not bad.ok and "request-1's replay repeats a different decision" in bad.problem
    again = check_history([acc("request-1", 2)], status(1, 1), prior=prior)
    assert not again.ok and again.problem.startswith("request-1 was already decided before the burst")


def test_decided_twice_without_replay() -> None:
    history = [acc("request-2", 1), acc("request-2", 2)]
    result = check_history(history, status(0))
    assert not result.ok
    assert result.problem == ("request-2 was decided twice: first accepted with reserved=1 for 1 seat, then "
                              "accepted with reserved=2 for 1 seat; a repeated requestId must get its first decision "
                              "back, marked replayed: true")


def test_the_first_decision_again_without_the_replay_mark_is_named_as_such() -> None:
    """The same decision twice is a replay that does not say so (exercise 2's learners read "decided twice" there,
    beside two equal decisions, and could not tell what was wrong)."""
    result = check_history([acc("request-2", 1), acc("request-2", 1)], status(1))
    assert not result.ok
    assert result.problem == ("request-2 got its first decision (accepted with reserved=1 for 1 seat) a second time, "
                              "but without replayed: true: the answer to a repeated requestId must say that it is a "
                              "replay")


def test_starting_from_a_non_zero_state() -> None:
    answers, end = serial_run(CAPACITY, 2, [(f"request-{i}", 1) for i in range(1, 5)])
    result = check_history(answers[::-1], status(2, 2, 1), status(4, 4, 3))
    assert result.ok, result.problem
    assert result.start == 2 and result.end == 4
    assert replay_steps(result, CAPACITY, 2) == first_decisions(answers)
    stale = check_history([acc("request-1", 1)], status(2, 2))
    assert not stale.ok
    assert stale.problem == "request-1 moved the counter from 0 to 1, but it was already at 2 before the burst"


def test_durable_reserved_below_the_chain_is_a_lost_write() -> None:
    history = [acc("request-1", 1), acc("request-2", 2), acc("request-3", 3)]
    result = check_history(history, status(0), status(2, 3))
    assert not result.ok
    assert result.problem == ("the durable status says reserved=2, but accepted answers took the counter to 3: "
                              "1 acknowledged reservation was lost")


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (status(3, 2), "the durable status says reserved=3, but the answers only account for reserved=2: "
                       "1 seat was taken without an accepted answer"),
        (status(2, 2, seats=3), "the durable status says reserved=2 but acceptedSeats=3"),
        (status(2, 3), "2 requestIds accepted but acceptedRequests grew by 3"),
        (status(2, 2, 1), "0 requestIds rejected but rejectedRequests grew by 1"),
        (status(2, 2, capacity=5), "the durable status says capacity=5, but it was 4 before"),
    ],
)
def test_durable_status_mismatches(after: dict[str, int], expected: str) -> None:
    result = check_history([acc("request-1", 1), acc("request-2", 2)], status(0), after)
    assert not result.ok
    assert result.problem.startswith(expected), result.problem


def test_unknown_responses_fill_a_gap() -> None:
    history = [acc("request-1", 1), body("request-2", None, seats=2), acc("request-3", 4), rej("request-4", 4)]
    result = check_history(history, status(0), status(4, 3, 1))
    assert result.ok, result.problem
    assert result.order == ["request-1", "request-2", "request-3", "request-4"]
    assert result.steps[1] == Step("request-2", 2, "accepted", 3, True)
    assert result.unknown == ["request-2"] and result.applied_unknown == ["request-2"]
    assert "1 undecided, of which this order lets 1 take effect" in explain(result)


def test_unknowns_as_decisions_fill_a_gap_of_several_seats() -> None:
    history = [as_decision(body("request-1", None)), acc("request-3", 4, seats=2), as_decision(body("request-2", None))]
    result = check_history(history, status(0), status(4, 3, 0))
    assert result.ok, result.problem
    assert result.order == ["request-1", "request-2", "request-3"]


def test_unknown_of_the_wrong_size_cannot_fill_a_gap() -> None:
    result = check_history([acc("request-1", 1), body("request-2", None, seats=2), acc("request-3", 3)], status(0))
    assert not result.ok
    assert "the undecided requests cannot make up those seats" in result.problem


def test_unneeded_unknowns_did_not_take_effect_or_were_rejected() -> None:
    history = [acc("request-1", 4, seats=4), body("request-2", None, seats=1), body("request-3", None, seats=1)]
    assert check_history(history, status(0), status(4, 1, 0)).ok
    result = check_history(history, status(0), status(4, 1, 1))
    assert result.ok, result.problem
    assert result.order == ["request-1", "request-2"] and result.steps[-1].unknown
    assert not check_history(history, status(0), status(4, 1, 3)).ok


def test_durable_counts_decide_which_undecided_requests_took_effect() -> None:
    """Seats 1, 1 and 2 all undecided, the counter went 0 -> 2: one 2-seat or two 1-seat requests? The counts say."""
    history = [body("request-1", None), body("request-2", None), body("request-3", None, seats=2)]
    two_small = check_history(history, status(0, capacity=2), status(2, 2, 1, capacity=2))
    assert two_small.ok, two_small.problem
    assert two_small.steps == [Step("request-1", 1, "accepted", 1, True), Step("request-2", 1, "accepted", 2, True),
                               Step("request-3", 2, "rejected", 2, True)]
    one_big = check_history(history, status(0, capacity=2), status(2, 1, 0, capacity=2))
    assert one_big.ok and one_big.order == ["request-3"]
    assert not check_history(history, status(0, capacity=2), status(2, 3, 0, capacity=2)).ok


def test_many_undecided_requests_are_handed_out_greedily() -> None:
    answers, end = serial_run(60, 0, [(f"request-{i}", 1) for i in range(1, 101)])
    lost = {f"request-{i}" for i in range(1, 101, 2)}  # 50 undecided: beyond the exact planner
    history = [body(a["requestId"], None) if a["requestId"] in lost else a for a in answers]
    result = check_history(history, status(0, capacity=60), status(60, 60, 40, capacity=60))
    assert result.ok, result.problem
    assert len(result.applied_unknown) == 30 and result.end == 60
    replayed, truth = replay_steps(result, 60, 0), first_decisions(answers)
    assert all(replayed[rid] == truth[rid] for rid in truth if rid not in lost)


def test_unknown_can_explain_the_state_a_rejection_saw() -> None:
    history = [body("request-1", None, seats=3), rej("request-2", 3, seats=2)]
    result = check_history(history, status(0))
    assert result.ok, result.problem
    assert result.order == ["request-1", "request-2"]


def test_unknown_with_a_decision_elsewhere_is_just_a_failed_attempt() -> None:
    history = [body("request-1", None), acc("request-1", 1)]
    result = check_history(history, status(0), status(1, 1))
    assert result.ok and result.unknown == []


def test_http_code_and_status_must_agree() -> None:
    wrong = Decision("request-1", 1, 409, acc("request-1", 1))
    result = check_history([wrong], status(0))
    assert not result.ok and result.problem == "request-1 was answered HTTP 409 but with status \"accepted\""


def test_problems_are_ordered_along_the_counter() -> None:
    history = [acc("request-1", 1), acc("request-2", 1), acc("request-3", 2), acc("request-4", 2)]
    result = check_history(history, status(0))
    assert [p.split(" (")[0] for p in result.problems] == [
        "request-1 and request-2 both report reserved=1", "request-3 and request-4 both report reserved=2"]
    text = explain(result)
    assert text.startswith("No serial order explains these answers. First contradiction: request-1 and request-2")
    assert "1 more contradiction:" in text


def test_malformed_input_raises() -> None:
    with pytest.raises(LabError):
        check_history([{"seats": 1, "status": "accepted", "reserved": 1}], status(0))
    with pytest.raises(LabError):
        check_history([{"requestId": "request-1", "seats": 0}], status(0))
    with pytest.raises(LabError):
        check_history([], {"reserved": 0})
    with pytest.raises(LabError):
        check_history([], status(0), {"reserved": 0})


def test_empty_burst() -> None:
    result = check_history([], status(3, 3, 1))
    assert result.ok and result.order == [] and result.end == 3
    assert check_history([], status(3, 3, 1), status(3, 3, 1)).ok
    assert not check_history([], status(3, 3, 1), status(4, 4, 1)).ok


# --- model-generated histories (hypothesis) -----------------------------------------------------------------------


@dataclass
class Execution:
    capacity: int
    start: int
    before: dict[str, int]
    after: dict[str, int]
    answers: list[dict[str, Any]]  # in the serial order
    responses: list[Any]  # what the client saw, in arrival order (dicts and Decisions)
    end: int


@st.composite
def executions(draw: st.DrawFn, max_requests: int = 16, unknowns: bool = False) -> Execution:
    capacity = draw(st.integers(1, 8))
    start = draw(st.integers(0, capacity))
    n = draw(st.integers(0, max_requests))
    requests = [(f"request-{i}", draw(st.integers(1, 4))) for i in range(1, n + 1)]
    serial = draw(st.permutations(requests))
    sequence = list(serial)
    if n:  # occasional retries with the same requestId, each some time after the first
        for pick, delay in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n)), max_size=4)):
            sequence.insert(min(sequence.index(serial[pick]) + 1 + delay, len(sequence)), serial[pick])
    answers, end = serial_run(capacity, start, sequence)
    before = status(start, draw(st.integers(0, 5)), draw(st.integers(0, 5)), capacity)
    decided = first_decisions(answers).values()
    after = status(end, before["acceptedRequests"] + sum(s == "accepted" for s, _, _ in decided),
                   before["rejectedRequests"] + sum(s == "rejected" for s, _, _ in decided), capacity)
    seen = list(answers)
    replayed_ids = {a["requestId"] for a in answers if a["replayed"]}
    for request_id in draw(st.lists(st.sampled_from(sorted(replayed_ids)), unique=True)) if replayed_ids else []:
        seen = [a for a in seen if a["replayed"] or a["requestId"] != request_id]  # the first answer was lost
    if unknowns and n:
        lost = draw(st.lists(st.sampled_from([r for r, _ in requests]), unique=True, max_size=4))
        seen = [body(a["requestId"], None, seats=a["seats"]) if a["requestId"] in lost else a for a in seen]
        ghosts = draw(st.lists(st.integers(1, 4), max_size=3))  # sent, but never reached the object
        seen += [body(f"ghost-{i}", None, seats=s) for i, s in enumerate(ghosts)]
    arrival = draw(st.permutations(seen))
    kinds = draw(st.lists(st.booleans(), min_size=len(arrival), max_size=len(arrival)))
    responses = [as_decision(a) if as_obj else a for a, as_obj in zip(arrival, kinds, strict=True)]
    return Execution(capacity, start, before, after, answers, responses, end)


def assert_explains(result: CheckResult, ex: Execution, after: dict[str, int] | None) -> None:
    """ok, and the order replayed through the model gives every decision the client saw."""
    assert result.ok, result.problem
    assert result.end == ex.end if after is not None else result.end <= ex.end
    assert len(result.order) == len(set(result.order))
    visible = {(r.body if isinstance(r, Decision) else r)["requestId"] for r in ex.responses
               if (r.body if isinstance(r, Decision) else r).get("status")}
    truth = first_decisions(ex.answers)
    replayed = replay_steps(result, ex.capacity, ex.start)
    assert {rid: replayed.get(rid) for rid in visible} == {rid: truth[rid] for rid in visible}


PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(executions())
def test_every_serial_execution_is_accepted_and_its_order_replays(ex: Execution) -> None:
    for after in (None, ex.after):
        result = check_history(ex.responses, ex.before, after)
        assert_explains(result, ex, after)
        truth = first_decisions(ex.answers)
        assert sorted(result.order) == sorted(truth)  # without undecided answers every request is placed
        assert replay_steps(result, ex.capacity, ex.start) == truth


@PROPERTY
@given(executions(unknowns=True))
def test_histories_with_undecided_answers_are_accepted(ex: Execution) -> None:
    for after in (None, ex.after):
        result = check_history(ex.responses, ex.before, after)
        assert_explains(result, ex, after)


def _by_id(responses: list[Any]) -> dict[str, list[int]]:
    positions: dict[str, list[int]] = {}
    for i, r in enumerate(responses):
        positions.setdefault(r["requestId"], []).append(i)
    return positions


def _chain_states(ex: Execution) -> set[int]:
    return {ex.start} | {a["reserved"] for a in ex.answers if a["status"] == "accepted"}


@PROPERTY
@given(executions(), st.data())
def test_mutated_histories_are_rejected(ex: Execution, data: st.DataObject) -> None:
    responses = [r.body if isinstance(r, Decision) else r for r in ex.responses]  # plain dicts to mutate
    positions = _by_id(responses)
    decided = first_decisions(ex.answers)
    seen_ids = [rid for rid in positions if rid in decided]
    accepted = [rid for rid in seen_ids if decided[rid][0] == "accepted"]
    rejected = [rid for rid in seen_ids if decided[rid][0] == "rejected"]
    kinds = []
    if accepted:
        kinds += ["move_accepted", "accepted_to_rejected", "drop_accepted"]
    if len(accepted) > 1:
        kinds.append("duplicate_reserved")
    if rejected:
        kinds += ["rejected_to_accepted", "reject_where_it_fits", "reject_at_missing_state"]
    kinds.append("lower_durable_reserved")
    kind = data.draw(st.sampled_from(kinds), label="mutation")
    after: dict[str, int] | None = data.draw(st.sampled_from([None, ex.after]), label="after")
    states = _chain_states(ex)

    def rewrite(request_id: str, **changes: Any) -> None:  # every response of that request, replays included
        for i in positions[request_id]:
            responses[i] = {**responses[i], **changes}

    if kind == "move_accepted":
        rid = data.draw(st.sampled_from(accepted))
        value = data.draw(st.integers(-2, ex.capacity + 4).filter(lambda v: v != decided[rid][1]))
        rewrite(rid, reserved=value)
    elif kind == "duplicate_reserved":
        a, b = data.draw(st.lists(st.sampled_from(accepted), min_size=2, max_size=2, unique=True))
        rewrite(b, reserved=decided[a][1])
    elif kind == "accepted_to_rejected":
        rewrite(data.draw(st.sampled_from(accepted)), status="rejected")
    elif kind == "rejected_to_accepted":
        rewrite(data.draw(st.sampled_from(rejected)), status="accepted")
    elif kind == "reject_where_it_fits":
        rid = data.draw(st.sampled_from(rejected))
        fitting = sorted(s for s in states if s + decided[rid][2] <= ex.capacity)
        assume(fitting)
        rewrite(rid, reserved=data.draw(st.sampled_from(fitting)))
    elif kind == "reject_at_missing_state":
        rid = data.draw(st.sampled_from(rejected))
        rewrite(rid, reserved=data.draw(st.integers(-2, ex.capacity + 4).filter(lambda v: v not in states)))
    elif kind == "drop_accepted":
        after = ex.after  # without the durable status a dropped last answer is indistinguishable from none
        dropped = set(positions[data.draw(st.sampled_from(accepted))])
        responses = [r for i, r in enumerate(responses) if i not in dropped]
    else:
        lower = data.draw(st.integers(1, 3))
        after = {**ex.after, "reserved": ex.end - lower, "acceptedSeats": ex.end - lower}
    result = check_history(responses, ex.before, after)
    assert not result.ok, (kind, responses, after)
    assert result.problem and result.order == []


# --- scale --------------------------------------------------------------------------------------------------------


def test_a_hundred_thousand_responses() -> None:
    rng = random.Random(7)
    capacity = 150_000
    requests = [(f"request-{i}", rng.randint(1, 4)) for i in range(1, 100_001)]
    answers, end = serial_run(capacity, 0, requests)
    rng.shuffle(answers)
    accepted = sum(a["status"] == "accepted" for a in answers)
    result = check_history(answers, status(0, capacity=capacity),
                           status(end, accepted, len(answers) - accepted, capacity=capacity))
    assert result.ok, result.problem
    assert len(result.order) == 100_000 and result.end == end
    answers[0] = {**answers[0], "reserved": answers[0]["reserved"] + 1}
    assert not check_history(answers, status(0, capacity=capacity)).ok
