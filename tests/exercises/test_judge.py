"""exercises.judge: a status read that gets no answer in time is asked once more (a busy machine can be slow once);
a Worker that stays silent, or answers without a readable status, is a crash. Against a loopback HTTP server whose
delays are set per request."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from reservation_lab.exercises import judge

STATUS = {"capacity": 4, "reserved": 0, "acceptedRequests": 0, "rejectedRequests": 0, "acceptedSeats": 0}


class Slow(ThreadingHTTPServer):
    """Answers GET /workshops/<name>/status after the next delay of `delays` (then without delay), or with `body`."""

    def __init__(self, delays: list[float], body: bytes = json.dumps(STATUS).encode(), code: int = 200) -> None:
        self.delays, self.body, self.code, self.seen = delays, body, code, 0
        super().__init__(("127.0.0.1", 0), Handler)


class Handler(BaseHTTPRequestHandler):
    server: Slow

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.server.seen += 1
        time.sleep(self.server.delays.pop(0) if self.server.delays else 0)
        try:
            self.send_response(self.server.code)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(self.server.body)
        except OSError:
            pass  # the client gave up

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def serve() -> Iterator:
    servers: list[Slow] = []

    def start(*args, **kwargs) -> tuple[Slow, str]:
        server = Slow(*args, **kwargs)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server, f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judge, "REQUEST_TIMEOUT", 0.3)


def test_one_late_answer_is_asked_again(serve) -> None:
    server, url = serve([0.6])
    assert judge.read_statuses(url, ["w-0"]) == {"w-0": STATUS} and server.seen == 2


def test_a_worker_that_stays_silent_is_a_crash(serve) -> None:
    server, url = serve([0.6, 0.6])
    failure = judge.read_statuses(url, ["w-0"])
    assert isinstance(failure, judge.Failure) and failure.kind == "crash" and server.seen == 2
    assert failure.message.key == "exercises.status_unreadable"


@pytest.mark.parametrize(("body", "code"), [(b"<html>oops</html>", 200), (json.dumps(STATUS).encode(), 500)])
def test_an_unreadable_answer_is_a_crash_at_once(serve, body: bytes, code: int) -> None:
    server, url = serve([], body=body, code=code)
    failure = judge.read_statuses(url, ["w-0"])
    assert isinstance(failure, judge.Failure) and failure.kind == "crash" and server.seen == 1


def test_a_replay_repeats_an_earlier_requestid_with_the_seats_it_drew() -> None:
    """A replay may ask for other seats than its first request did (the first decision stands): a Worker that
    looks replays up by requestId and seats then books twice, and the checker sees one requestId decided twice."""
    from reservation_lab.exercises.workloads import Request, Round, Workload

    workload = Workload((Round((Request("new", 0, 3),)), Round((Request("replay", 0, 1), Request("replay", 1, 2)))))
    first, second = judge.requests_of(workload, "t1")
    assert [(s.request_id, s.seats, s.kind) for s in first] == [("r1-1", 3, "new")]
    replay, no_earlier = second
    assert (replay.request_id, replay.seats, replay.kind) == ("r1-1", 1, "replay")
    assert json.loads(replay.body) == {"requestId": "r1-1", "seats": 1}
    assert (no_earlier.request_id, no_earlier.kind) == ("r2-2", "new")  # nothing earlier in workshop 1: a new one


def test_accepted_beyond_capacity_counts_new_accepted_seats_once() -> None:
    """A clamped counter (every request accepted, the counter stuck at 4) repeats counter values, which reads as a
    lost update; the judge names it overbooking because more seats were accepted than were free."""
    from reservation_lab.exercises.judge import accepted_beyond_capacity

    def answer(rid: str, seats: int, reserved: int, **extra: object) -> dict[str, object]:
        return {"requestId": rid, "seats": seats, "status": "accepted", "reserved": reserved, **extra}

    before = {"capacity": 4, "reserved": 1}
    clamped = [answer("a", 2, 3), answer("b", 2, 4), answer("c", 1, 4)]
    assert accepted_beyond_capacity(clamped, before, prior=[])
    fits = [answer("a", 2, 3), answer("a", 2, 3), answer("b", 1, 4), answer("old", 3, 4, replayed=True)]
    assert not accepted_beyond_capacity(fits, before, prior=[])  # twins once, a replay not at all
    assert not accepted_beyond_capacity([answer("old", 3, 4)], before, prior=[{"requestId": "old"}])
    assert not accepted_beyond_capacity(clamped, {"capacity": 4, "reserved": None}, prior=[])


def test_a_cancel_names_an_earlier_rounds_request_or_one_never_sent() -> None:
    """Round 1's cancel has nothing earlier to name (an unknown requestId: the Worker must answer 404); round 2's
    name round 1's requests of their workshop by `ref`; twin cancels are sent twice; cancels carry no seats."""
    from reservation_lab.exercises.workloads import Request, Round, Workload

    workload = Workload((Round((Request("cancel", 0, 2), Request("new", 0, 3), Request("new", 0, 1))),
                         Round((Request("cancel_twins", 0, 1, ref=1), Request("cancel", 0, 4, ref=0)))))
    first, second = judge.requests_of(workload, "t1")
    assert [(one.request_id, one.kind, one.seats) for one in first] == [
        ("r1-1", "cancel", 0), ("r1-2", "new", 3), ("r1-3", "new", 1)]
    assert [(one.request_id, one.kind) for one in second] == [("r1-3", "cancel"), ("r1-3", "cancel"),
                                                              ("r1-2", "cancel")]
    assert workload.size == 6 and all(one.cancels and one.valid for one in second)


def test_a_cancel_answers_only_200_cancelled_404_or_409() -> None:
    """A cancel's 500, or a 200 without `status: cancelled`, is a crash with the cancel's own sentence."""
    ok = judge.Sent(1, "w", "r1-1", 0, "cancel", "", 200, {"status": "cancelled", "reserved": 0})
    unknown = judge.Sent(1, "w", "r1-2", 0, "cancel", "", 404, {"error": "unknown_reservation"})
    assert judge._answers_failure([ok, unknown], 1) is None
    for code, answer in ((500, {"text": "boom"}), (200, {"status": "accepted"})):
        failed = judge._answers_failure([judge.Sent(1, "w", "r1-1", 0, "cancel", "", code, answer)], 1)
        assert failed is not None and failed.kind == "crash"
        assert failed.message.key == "exercises.no_cancel_decision"


def test_the_search_checkers_problems_map_to_the_class_a_learner_can_act_on() -> None:
    """Twice freed, freed below 0, a rejected one freed: a wrong cancellation; a second decision, overbooking and
    the person's limit keep their own classes."""
    from reservation_lab.domain.checker.search import CANCEL, RESERVE, Request, check_with_cancels

    def kind_of(*rounds: list[Request], per_person: int | None = None) -> str:
        result = check_with_cancels(list(rounds), {"capacity": 4, "reserved": 0}, per_person=per_person)
        assert not result.ok
        return judge._class_of_search(result.problem, 4, cancels=per_person is None)

    held = Request(RESERVE, "a", 3, {"code": 201, "status": "accepted", "reserved": 3, "replayed": False, "seats": 3})
    freed = {"code": 200, "status": "cancelled", "reserved": 0, "replayed": False, "seats": 3}
    assert kind_of([held], [Request(CANCEL, "a", 0, freed), Request(CANCEL, "a", 0, freed)]) == "bad_cancel"
    below = {**freed, "reserved": -3}
    assert kind_of([held], [Request(CANCEL, "a", 0, freed)], [Request(CANCEL, "a", 0, below)]) == "bad_cancel"
    rejected = Request(RESERVE, "b", 2, {"code": 409, "status": "rejected", "reserved": 3, "replayed": False,
                                         "seats": 2})
    assert kind_of([held], [rejected], [Request(CANCEL, "b", 0, {**freed, "reserved": 1, "seats": 2})]) == "bad_cancel"
    again = Request(RESERVE, "a", 3, {"code": 201, "status": "accepted", "reserved": 3, "replayed": False, "seats": 3})
    assert kind_of([held], [Request(CANCEL, "a", 0, freed)], [again]) == "double_spend"
    over = Request(RESERVE, "c", 4, {"code": 201, "status": "accepted", "reserved": 7, "replayed": False, "seats": 4})
    assert kind_of([held], [over]) == "overbooking"
    # a limit of 2 per person: p0's 3 seats accepted is the person's limit broken, whatever the counter says
    greedy = Request(RESERVE, "d", 3, {"code": 201, "status": "accepted", "reserved": 3, "replayed": False, "seats": 3},
                     person="p0")
    assert kind_of([greedy], per_person=2) == "person_limit"


def test_a_person_workloads_requests_name_their_person_in_the_body() -> None:
    """The person exercise's bodies carry `person` (p0, p1, …), twins and replays too; other workloads' do not."""
    from reservation_lab.exercises.workloads import Request, Round, Workload

    rounds = (Round((Request("new", 0, 2, person=1), Request("twins", 0, 1, person=2))),
              Round((Request("replay", 0, 1, ref=0, person=0),)))
    first, second = judge.requests_of(Workload(rounds, persons=True), "t1")
    assert [json.loads(one.body)["person"] for one in first + second] == ["p1", "p2", "p2", "p0"]
    assert [one.decided().person for one in first] == ["p1", "p2", "p2"]
    plain = judge.requests_of(Workload(rounds), "t1")
    assert all("person" not in json.loads(one.body) and one.person == "" for round_ in plain for one in round_)
