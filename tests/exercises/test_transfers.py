"""exercises.transfers: the transfer workloads stay in their bounds and shrink towards one plain move; a workload's
size counts twins twice and a person's cancel once."""

from __future__ import annotations

from hypothesis import given, settings

from reservation_lab.exercises.transfers import (
    Move,
    TransferWorkload,
    large_transfer_workloads,
    shown_answer,
    transfer_workloads,
)


@settings(max_examples=60, database=None)
@given(transfer_workloads)
def test_the_small_workloads_stay_in_their_bounds(workload: TransferWorkload) -> None:
    assert 1 <= len(workload.reservations) <= 4 and 1 <= len(workload.moves) <= 3
    assert all(side in (0, 1) and 1 <= seats <= 4 for side, seats in workload.reservations)
    assert len(workload.cancelled) <= 1  # a person's cancel before the transfers, now and then
    assert workload.size == (len(workload.reservations) + len(workload.cancelled) + len(workload.moves)
                             + sum(m.twins for m in workload.moves))


@settings(max_examples=60, database=None)
@given(large_transfer_workloads)
def test_the_large_workloads_stay_in_theirs(workload: TransferWorkload) -> None:
    assert 1 <= len(workload.reservations) <= 8 and 1 <= len(workload.moves) <= 8


def test_the_smallest_workload_is_one_plain_move_and_an_answer_shows_its_code_and_word() -> None:
    smallest = TransferWorkload(((0, 1),), (Move(0),))
    assert smallest.size == 2 and smallest.rounds == (((0, 1),), (Move(0),))
    assert shown_answer(200, {"status": "moved"}) == "200 moved"
    assert shown_answer(409, {"error": "no_room"}) == "409 no_room" and shown_answer(500, {}) == "500"
