"""exercises.workloads: the small workloads stay inside their bounds; the large ones reach past them."""

from __future__ import annotations

from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from reservation_lab.exercises import workloads as generated
from reservation_lab.exercises.clients import LARGE_CALLS, MAX_CALLS, client_workloads, large_client_workloads
from reservation_lab.exercises.workloads import Workload


def bounds(workload: Workload) -> tuple[int, int, int]:
    """Rounds, the most requests in one round, workshops."""
    return (len(workload.rounds), max(len(r.requests) for r in workload.rounds),
            1 + max(q.workshop for r in workload.rounds for q in r.requests))


@settings(max_examples=60, database=None)
@given(st.one_of(generated.workloads, generated.person_workloads))
def test_the_small_workloads_stay_within_two_rounds_of_six(workload: Workload) -> None:
    rounds, requests, workshops = bounds(workload)
    assert rounds <= generated.MAX_ROUNDS and requests <= generated.MAX_REQUESTS and workshops <= generated.WORKSHOPS


@settings(max_examples=60, database=None)
@given(generated.cancel_workloads)
def test_the_small_cancel_workloads_stay_within_three_rounds_in_one_workshop(workload: Workload) -> None:
    rounds, requests, workshops = bounds(workload)
    assert rounds <= generated.MAX_ROUNDS + 1 and requests <= generated.MAX_REQUESTS and workshops == 1


FIRST_FOUND = settings(max_examples=2000, database=None, phases=[Phase.generate])  # no shrinking: the first one


def test_the_large_workloads_reach_past_the_small_bounds() -> None:
    """Each large strategy draws a workload no small one can (more rounds and more requests in a round than the
    small ones allow), and never more than its own bounds."""
    for strategy in (generated.large_workloads, generated.large_cancel_workloads, generated.large_person_workloads):
        big = find(strategy, lambda w: bounds(w)[0] > generated.MAX_ROUNDS + 1
                   and bounds(w)[1] > generated.MAX_REQUESTS, settings=FIRST_FOUND)
        rounds, requests, workshops = bounds(big)
        assert rounds <= generated.LARGE_ROUNDS and requests <= generated.LARGE_REQUESTS
        assert workshops <= generated.LARGE_WORKSHOPS
    assert find(generated.large_workloads, lambda w: bounds(w)[2] == generated.LARGE_WORKSHOPS, settings=FIRST_FOUND)
    calls = find(large_client_workloads, lambda w: len(w.calls) > MAX_CALLS, settings=FIRST_FOUND)
    assert MAX_CALLS < len(calls.calls) <= LARGE_CALLS
    assert find(client_workloads, lambda w: len(w.calls) == MAX_CALLS, settings=FIRST_FOUND)
