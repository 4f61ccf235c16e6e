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


def test_a_5xx_in_a_round_with_a_restart_is_the_restarts_and_the_transfer_is_sent_again() -> None:
    """A server stopped mid-request may answer 500 instead of closing the connection (wrangler dev's proxy, when its
    runtime stops first: "Network connection lost"). In a round with a restart that 5xx is no answer of the Worker's:
    the transfer is sent again; in a round without one, a 5xx stays the Worker's answer for the judge."""
    import httpx

    from reservation_lab.exercises.between_steps import BetweenSteps
    from reservation_lab.exercises.loopback import LoopbackServer, QuietHandler
    from reservation_lab.exercises.transfers import Booked, Transfer, TransferTrial, _send_to_completion

    sends: list[str] = []
    hook = BetweenSteps(lambda: None)

    class StoppedMidRequest(QuietHandler):  # the transport a grading server shows while it is stopped
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers["content-length"])).decode()
            transfer = "t1" if '"t1"' in body else "t2"
            sends.append(transfer)
            first = sends.count(transfer) == 1
            if transfer == "t1" and first:  # the armed transfer: betweenSteps() restarts the server under it
                httpx.get(hook.url, params={"transfer": "t1"}, trust_env=False, timeout=10)
            code, text = ((500, b"Error: Network connection lost.") if first else
                          (200, b'{"status": "moved"}'))
            self.send_response(code)
            self.send_header("content-length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

    server = LoopbackServer(StoppedMidRequest, "stopped-mid-request").start()
    try:
        trial = TransferTrial(TransferWorkload(((0, 1),), (Move(0, restart=True),)))
        booked = Booked("r1-1", "w-a", 1)
        restarted = Transfer("t1", booked, "w-b", twins=False, restart=True)
        beside = Transfer("t2", booked, "w-b", twins=False, restart=False)
        _send_to_completion([restarted, beside], lambda: server.url, hook, trial)
        assert trial.restarts == 1 and sorted(sends) == ["t1", "t1", "t2", "t2"]
        assert [code for code, _ in restarted.answers] == [None, 200] == [code for code, _ in beside.answers]
        alone = Transfer("t2", booked, "w-b", twins=False, restart=False)
        sends.clear()
        _send_to_completion([alone], lambda: server.url, hook, trial)  # no restart: the 500 is the Worker's
        assert sends == ["t2"] and [code for code, _ in alone.answers] == [500] and trial.restarts == 1
    finally:
        server.close()
        hook.close()
