"""domain.checker.search: histories with cancellations, checked by a search for a serial order (and against an
exhaustive oracle on small histories)."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from reservation_lab.domain.checker.search import (
    CANCEL,
    RESERVE,
    Request,
    Workshop,
    apply,
    check_with_cancels,
    explains,
)
from reservation_lab.i18n import describe

BEFORE = {"capacity": 4, "reserved": 0}


def answered(state: Workshop, request: Request) -> tuple[Workshop, Request]:
    after, answer = apply(state, request)
    return after, request._replace(answer=answer)


def serial(requests: list[Request], start: Workshop | None = None) -> tuple[list[Request], Workshop]:
    """The requests with the answers the model gives them one after another, and the state at the end."""
    state = start or Workshop(4, 0)
    out = []
    for request in requests:
        state, request = answered(state, request)
        out.append(request)
    return out, state


def test_a_cancel_frees_the_seats_once_and_a_replay_after_it_books_nothing() -> None:
    history, state = serial([Request(RESERVE, "r1", 3), Request(CANCEL, "r1"), Request(CANCEL, "r1"),
                             Request(RESERVE, "r1", 3), Request(RESERVE, "r2", 4)])
    assert [r.answer["code"] for r in history] == [201, 200, 200, 201, 201]
    assert [r.answer["reserved"] for r in history] == [3, 0, 0, 3, 4]  # the replay repeats the first decision
    assert [r.answer["replayed"] for r in history] == [False, False, True, True, False]
    assert state.status() == {"capacity": 4, "reserved": 4, "acceptedRequests": 2, "rejectedRequests": 0,
                              "cancelledRequests": 1, "acceptedSeats": 4}
    assert check_with_cancels([history], BEFORE, state.status()).ok


def test_a_cancel_of_an_unknown_or_rejected_request_is_a_4xx_and_changes_nothing() -> None:
    history, state = serial([Request(CANCEL, "nobody"), Request(RESERVE, "big", 4), Request(RESERVE, "late", 1),
                             Request(CANCEL, "late")])
    assert [r.answer["code"] for r in history] == [404, 201, 409, 409]
    assert state.reserved == 4 and state.status()["cancelledRequests"] == 0


def test_one_round_whose_answers_repeat_a_counter_value_needs_the_search() -> None:
    """r1 takes 2 seats (reserved 2), is cancelled (0), r2 takes 2 (2): two accepted answers say reserved=2, which
    the chain checker would call a lost update; in one concurrent round only this order explains them."""
    first, state = serial([Request(RESERVE, "r1", 2)])
    history, state = serial([Request(CANCEL, "r1"), Request(RESERVE, "r2", 2)], state)
    round_ = list(reversed(history))
    result = check_with_cancels([first, round_], BEFORE, state.status())
    assert result.ok and result.order == [(RESERVE, "r1"), (CANCEL, "r1"), (RESERVE, "r2")]


def test_answers_no_state_gives_are_named() -> None:
    over = Request(RESERVE, "r1", 2, {"code": 201, "status": "accepted", "reserved": 6, "replayed": False,
                                      "seats": 2})
    assert check_with_cancels([[over]], BEFORE).problem.key == "checker.counter_out_of_range"
    history, _ = serial([Request(RESERVE, "r1", 2), Request(CANCEL, "r1")])
    twice = [*history, history[1]._replace(answer={**history[1].answer, "reserved": 0})]  # freed twice, both first
    result = check_with_cancels([twice], BEFORE)
    assert not result.ok and result.problem.key == "checker.cancelled_twice"
    assert "r1" in describe(result.problem, "de") and "storniert" in describe(result.problem, "de")


def test_a_counter_taken_below_its_seats_finds_no_order_and_names_the_request() -> None:
    """A Worker that frees a reservation's seats on every cancel: the second cancel says it freed them again."""
    history, _ = serial([Request(RESERVE, "r1", 2), Request(RESERVE, "r2", 2), Request(CANCEL, "r1")])
    again = Request(CANCEL, "r1", answer={"code": 200, "status": "cancelled", "reserved": 0, "replayed": True,
                                          "seats": 2})
    result = check_with_cancels([history, [again]], BEFORE)
    assert not result.ok and result.problem.key == "checker.no_order_for"
    assert "r1" in describe(result.problem, "es") and "cancelación" in describe(result.problem, "es")


def test_an_undecided_cancel_may_or_may_not_have_freed_the_seats() -> None:
    history, state = serial([Request(RESERVE, "r1", 2)])
    lost = Request(CANCEL, "r1")  # no answer
    for took_effect in (True, False):
        after = serial([lost], state)[1] if took_effect else state
        assert check_with_cancels([history, [lost]], BEFORE, after.status()).ok
    wrong = {**state.status(), "reserved": 1}
    result = check_with_cancels([history, [lost]], BEFORE, wrong)
    assert not result.ok and result.problem.key == "checker.no_order_durable"


def test_every_problem_of_the_search_reads_in_every_language() -> None:
    """Each template of check_with_cancels is reached by a history above and rendered in every catalog."""
    from tests.domain.test_explanation import SEARCH_TEMPLATES

    history, _ = serial([Request(RESERVE, "r1", 2), Request(CANCEL, "r1")])
    twice_decided = [history[0], history[0]._replace(answer={**history[0].answer, "reserved": 3})]
    stuck_reserve = [Request(RESERVE, "r1", 2, {**history[0].answer, "reserved": 1})]
    stuck_cancel = [history[0], history[1]._replace(answer={**history[1].answer, "reserved": 1})]
    over, _ = serial([Request(RESERVE, "r1", 3, person="p0")])  # the model without a limit accepts it
    full, _ = serial([Request(RESERVE, "r1", 4), Request(RESERVE, "r2", 1), Request(CANCEL, "r2")])
    freed = full[:2] + [full[2]._replace(answer={**full[2].answer, "code": 200, "status": "cancelled"})]
    refused = [Request(RESERVE, "r1", 1, {"code": 409, "status": "rejected", "reserved": 0, "replayed": False,
                                          "seats": 1}, person="p0")]
    problems = [check_with_cancels(rounds, BEFORE, after, per_person).problem for rounds, after, per_person in (
        ([[history[0]._replace(answer={**history[0].answer, "reserved": 9})]], None, None),
        ([[history[1], history[1]]], None, None), ([twice_decided], None, None), ([stuck_reserve], None, None),
        ([stuck_cancel], None, None), ([history], {"reserved": 2}, None), ([over], None, 2), ([freed], None, None),
        ([refused], None, 2))]
    reached = {p.key for p in problems} | {v.key for p in problems for v in p.values.values() if hasattr(v, "key")}
    assert reached - {"checker.seats"} == SEARCH_TEMPLATES  # checker.seats: a piece of one problem, of the chain's too
    for problem in problems:
        for language in ("en", "de", "pt", "es"):
            assert "{" not in describe(problem, language)


def test_a_person_over_the_limit_is_named_with_the_reservations_that_took_them_there() -> None:
    """Without cancels a person's accepted seats only grow: two accepted first decisions of p1 (2 + 1 seats) pass
    the limit of 2 whatever the order, and the problem says who, how many and which; p0's replay is not counted
    twice; with a cancel in the history the search decides (a cancel may have freed seats in between)."""
    model = Workshop(4, 0)  # no limit: it accepts what a Worker without the limit would
    history, _ = serial([Request(RESERVE, "a", 1, person="p0"), Request(RESERVE, "a", 1, person="p0"),
                         Request(RESERVE, "b", 2, person="p1"), Request(RESERVE, "c", 1, person="p1")], model)
    result = check_with_cancels([history[:2], history[2:]], BEFORE, None, per_person=2)
    assert not result.ok and result.problem.key == "checker.over_person_limit"
    assert result.problem.values == {"person": "p1", "seats": 3, "rids": "b, c", "limit": 2}
    assert "p1" in describe(result.problem, "pt") and "b, c" in describe(result.problem, "de")
    within = check_with_cancels([history[:3]], BEFORE, None, per_person=2)  # p0 1, p1 2: within the limit
    assert within.ok
    cancelled, state = serial([Request(RESERVE, "b", 2, person="p1"), Request(CANCEL, "b"),
                               Request(RESERVE, "c", 2, person="p1")], Workshop(4, 0, per_person=2))
    assert check_with_cancels([cancelled], BEFORE, state.status(), per_person=2).ok



def test_a_cancel_that_frees_a_rejected_reservation_is_named() -> None:
    """r2 was rejected (the workshop full): a cancel of it answered 200 frees seats it never held. The problem names
    that cancel, not the first request the search could not place (a learner read the latter and was misled); the
    right answer, 409, passes."""
    history, state = serial([Request(RESERVE, "r1", 4), Request(RESERVE, "r2", 1), Request(CANCEL, "r2")])
    assert [r.answer["code"] for r in history] == [201, 409, 409] and check_with_cancels(
        [history[:2], history[2:]], BEFORE, state.status()).ok
    freed = history[2]._replace(answer={"code": 200, "status": "cancelled", "reserved": 3, "replayed": False,
                                        "seats": 1})
    result = check_with_cancels([history[:2], [freed]], BEFORE)
    assert not result.ok and result.problem.key == "checker.cancel_of_rejected"
    assert result.problem.values == {"rid": "r2"} and "409" in describe(result.problem, "es")


def test_a_rejection_within_the_limit_and_the_room_is_named_with_what_the_person_could_hold() -> None:
    """p0 holds 1 seat (a accepted) and asks for 1 more with room left: rejecting it breaks no limit of 2. The
    problem says so (the counter in its own answer, what p0 could hold at most); a rejection for lack of room, or
    with an unanswered reservation of p0 that may hold the seats, is left to the search."""
    accepted = Request(RESERVE, "a", 1, {"code": 201, "status": "accepted", "reserved": 1, "replayed": False,
                                         "seats": 1}, person="p0")
    refused = Request(RESERVE, "b", 1, {"code": 409, "status": "rejected", "reserved": 1, "replayed": False,
                                        "seats": 1}, person="p0")
    result = check_with_cancels([[accepted], [refused]], BEFORE, None, per_person=2)
    assert not result.ok and result.problem.key == "checker.rejected_within_limit"
    assert {k: v for k, v in result.problem.values.items() if k != "seats"} == {
        "rid": "b", "person": "p0", "reserved": 1, "held": 1, "limit": 2}
    assert "1 Platz" in describe(result.problem, "de")
    unanswered = Request(RESERVE, "c", 1, None, person="p0")  # may have taken p0's second seat first
    maybe = check_with_cancels([[accepted], [unanswered, refused]], BEFORE, None, per_person=2)
    assert maybe.ok or maybe.problem.key != "checker.rejected_within_limit"
    no_room = Request(RESERVE, "b", 1, {"code": 409, "status": "rejected", "reserved": 4, "replayed": False,
                                        "seats": 1}, person="p0")
    fill = [Request(RESERVE, "x", 2, {"code": 201, "status": "accepted", "reserved": 3, "replayed": False,
                                      "seats": 2}, person="p1"),
            Request(RESERVE, "y", 1, {"code": 201, "status": "accepted", "reserved": 4, "replayed": False,
                                      "seats": 1}, person="p2")]
    assert check_with_cancels([[accepted], fill[:1], fill[1:], [no_room]], BEFORE, None, per_person=2).ok


# Generated histories ---------------------------------------------------------------------------------------------

requests = st.builds(lambda kind, rid, seats: Request(kind, f"r{rid}", seats),
                     st.sampled_from((RESERVE, RESERVE, CANCEL)), st.integers(0, 3), st.integers(1, 3))


@st.composite
def executions(draw: st.DrawFn) -> tuple[list[list[Request]], dict]:
    """A serial execution of the model cut into rounds, each round shuffled, some answers lost."""
    ops = draw(st.lists(requests, min_size=1, max_size=8))
    history, state = serial(ops)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(history) - 1)), max_size=2)))
    rounds = [history[a:b] for a, b in itertools.pairwise([0, *cuts, len(history)]) if history[a:b]]
    shuffler = random.Random(draw(st.integers(0, 2**16)))
    lost = draw(st.sets(st.integers(0, len(history) - 1), max_size=2))
    out, seen = [], 0
    for round_ in rounds:
        kept = [r._replace(answer=None) if seen + i in lost else r for i, r in enumerate(round_)]
        shuffler.shuffle(kept)
        out.append(kept)
        seen += len(round_)
    return out, state.status()


@settings(max_examples=150, deadline=None)
@given(executions())
def test_every_serial_execution_with_cancels_is_accepted(execution: tuple[list[list[Request]], dict]) -> None:
    rounds, after = execution
    assert check_with_cancels(rounds, BEFORE, after).ok


def exhaustive(rounds: list[list[Request]], after: dict) -> bool:
    """The oracle: every order of every round, every undecided request taking effect or not."""
    states = {Workshop(4, 0)}
    for round_ in rounds:
        reached = set()
        for state in states:
            for order in itertools.permutations(round_):
                undecided = [i for i, r in enumerate(order) if r.answer is None]
                for skipped in itertools.chain.from_iterable(itertools.combinations(undecided, k)
                                                            for k in range(len(undecided) + 1)):
                    now, fine = state, True
                    for i, request in enumerate(order):
                        if i in skipped:
                            continue
                        now, answer = apply(now, request)
                        if request.answer is not None and not explains(answer, request.answer):
                            fine = False
                            break
                    if fine:
                        reached.add(now)
        states = reached
    return any(all(state.status()[k] == after[k] for k in after) for state in states)


@settings(max_examples=40, deadline=None)  # the oracle enumerates every order: ~0.06 s an example here
@given(executions(), st.data())
def test_a_mutated_history_is_rejected_exactly_when_no_order_explains_it(
        execution: tuple[list[list[Request]], dict], data: st.DataObject) -> None:
    """One answer changed (its counter moved by one, its replay flag flipped, or another status): the search
    says ok exactly when an exhaustive enumeration of orders finds one."""
    rounds, after = execution
    answered_at = [(i, j) for i, round_ in enumerate(rounds) for j, r in enumerate(round_) if r.answer]
    if answered_at and len(sum(rounds, [])) <= 6:
        i, j = data.draw(st.sampled_from(answered_at))
        seen = dict(rounds[i][j].answer)
        change = data.draw(st.sampled_from(("reserved+", "reserved-", "replayed", "status")))
        if change.startswith("reserved") and "reserved" in seen:
            seen["reserved"] += 1 if change == "reserved+" else -1
        elif change == "replayed" and "replayed" in seen:
            seen["replayed"] = not seen["replayed"]
        elif change == "status" and seen.get("status") in ("accepted", "rejected"):
            seen["status"] = "rejected" if seen["status"] == "accepted" else "accepted"
        rounds[i][j] = rounds[i][j]._replace(answer=seen)
    result = check_with_cancels(rounds, BEFORE, after)
    assert result.ok == exhaustive(rounds, after), (rounds, after)
