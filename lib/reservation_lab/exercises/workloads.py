"""Adversarial workloads for a reservation Worker, generated (and shrunk) by hypothesis.

A workload is a few rounds; a round is a set of requests sent at the same moment, optionally followed by a restart
of the server. A request reserves 1-4 seats in one of a few workshops with a new requestId, repeats an earlier
requestId (a replay, with seats of its own: the first decision stands), arrives twice at once with one new requestId
(twins), or carries an invalid body. For a Worker that takes cancellations (`cancel_workloads`) a request may also
cancel an earlier requestId (one that was never sent, when there is none yet) or cancel it twice at once; for one
with a limit per person (`person_workloads`) every request names one of three persons; for one that awaits an
external check (`check_workloads`) a new request's first check may fail (a replay of it later is its retry). Hypothesis
shrinks towards fewer rounds, fewer and smaller requests, new requestIds and no restart: the smallest failing
workload is the easiest one to read.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

KINDS = ("new", "replay", "twins", "invalid")  # shrinks towards the first
CHECK_FAILS = "check_fails"  # a new requestId whose first external check fails (the naive exercise's Worker)
CANCEL_KINDS = ("cancel", "cancel_twins")  # DELETE an earlier requestId's reservation, once or twice at once
TWIN_KINDS = ("twins", "cancel_twins")  # sent twice at the same moment
INVALID_BODIES = ('{"requestId": "{rid}", "seats": 0}', '{"requestId": "{rid}", "seats": 5}',
                  '{"seats": 1}', '{"requestId": "{rid}", "seats": "2"}', "not json")
MAX_ROUNDS, MAX_REQUESTS, WORKSHOPS = 2, 6, 2
# Larger workloads (the grader's `large` search, run by `./lab test -m stress` and on request): two to four rounds of
# 6-16 requests. A Worker that only fails past a dozen requests at once, or after several rounds, passes the small ones.
LARGE_ROUNDS, LARGE_REQUESTS, LARGE_WORKSHOPS = 4, 16, 3
PERSONS = 3  # p0, p1, p2
PER_PERSON = 2  # the most seats one person may hold in a workshop: the person exercise's Worker says the same


@dataclass(frozen=True)
class Request:
    """One request of a round, before requestIds are given: `ref` picks the earlier requestId a replay repeats,
    or the invalid body."""

    kind: str
    workshop: int
    seats: int
    ref: int = 0
    person: int = 0

    @property
    def cancels(self) -> bool:
        return self.kind in CANCEL_KINDS


@dataclass(frozen=True)
class Round:
    requests: tuple[Request, ...]
    restart: bool = False


@dataclass(frozen=True)
class Workload:
    rounds: tuple[Round, ...]
    persons: bool = False  # its reservations name their person (the person exercise)

    @property
    def size(self) -> int:
        """How many HTTP requests the workload sends (twins count twice)."""
        return sum(1 + (r.kind in TWIN_KINDS) for round_ in self.rounds for r in round_.requests)

    @property
    def restarts(self) -> int:
        return sum(round_.restart for round_ in self.rounds)


def _workloads(kinds: tuple[str, ...], workshops: int = WORKSHOPS, persons: int = 1, extra_round: bool = False,
               large: bool = False) -> st.SearchStrategy[Workload]:
    """Workloads of `kinds` over `workshops`; `large` picks the large bounds (at least two rounds of six requests),
    `extra_round` one round more than the small bound (the cancel exercise's reserve, cancel, replay)."""
    max_rounds = LARGE_ROUNDS if large else MAX_ROUNDS + extra_round
    max_requests = LARGE_REQUESTS if large else MAX_REQUESTS
    requests = st.builds(Request, kind=st.sampled_from(kinds), workshop=st.integers(0, workshops - 1),
                         seats=st.integers(1, 4), ref=st.integers(0, 7),
                         person=st.integers(0, persons - 1) if persons > 1 else st.just(0))  # just: no draw, the
    # other exercises' workloads (and so their smallest failing ones, for a seed) stay as they were
    rounds = st.builds(Round, requests=st.lists(requests, min_size=MAX_REQUESTS if large else 1,
                                                max_size=max_requests).map(tuple),
                       restart=st.sampled_from((False, False, True)))  # shrinks to no restart
    return st.builds(Workload, rounds=st.lists(rounds, min_size=2 if large else 1, max_size=max_rounds).map(tuple),
                     persons=st.just(persons > 1))


workloads = _workloads(KINDS)
# Cancels meet what they cancel in one workshop (isolation is the other workloads' concern), over three rounds:
# reserve, cancel, then replay the reserve or cancel again.
cancel_workloads = _workloads(KINDS + CANCEL_KINDS, workshops=1, extra_round=True)
person_workloads = _workloads(KINDS, persons=PERSONS)
check_workloads = _workloads(KINDS + (CHECK_FAILS,))
large_workloads = _workloads(KINDS, LARGE_WORKSHOPS, large=True)
large_cancel_workloads = _workloads(KINDS + CANCEL_KINDS, workshops=1, large=True)
large_person_workloads = _workloads(KINDS, persons=PERSONS, large=True)
large_check_workloads = _workloads(KINDS + (CHECK_FAILS,), LARGE_WORKSHOPS, large=True)
