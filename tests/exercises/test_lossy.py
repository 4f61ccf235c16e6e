"""exercises.lossy: each fault does to a request what its name says, in front of the lab's real Worker (one dev
server for the module); the log holds what reached the Worker and what it answered; a later attempt goes through."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from reservation_lab.domain.routes import reservations_path, status_path
from reservation_lab.exercises.lossy import CALL_HEADER, DELAY, ENDLESS, FAULTS, STALL, STALL_SECONDS, LossyNetwork
from reservation_lab.runtime.devserver import DevServer


@pytest.fixture
def workshop(request: pytest.FixtureRequest) -> Iterator[str]:
    yield f"lossy-{request.node.name.split('[')[-1].rstrip(']').replace('_', '-')}"


def status(server: DevServer, workshop: str) -> dict:
    return httpx.get(f"{server.base_url}{status_path(workshop)}", trust_env=False).json()


def reserve_through(network: LossyNetwork, workshop: str, rid: str, call: int = 1) -> httpx.Response:
    with httpx.Client(base_url=network.url, headers={CALL_HEADER: network.call_header(call)}, trust_env=False,
                      timeout=10) as http:
        return http.post(reservations_path(workshop), json={"requestId": rid, "seats": 2})


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_does_what_it_says_and_the_next_attempt_goes_through(shared_server: DevServer, workshop: str,
                                                                         fault: str) -> None:
    with LossyNetwork(shared_server.base_url, {1: (fault,)}) as network:
        started = time.monotonic()
        try:
            first = reserve_through(network, workshop, "r-one")
        except httpx.TransportError:
            first = None
        took = time.monotonic() - started
        after_first = status(shared_server, workshop)
        second = reserve_through(network, workshop, "r-one")  # the same requestId again: no fault any more
        attempts = network.of_call(1)
    assert network.errors == []
    decided = {"drop_request": 0, "refuse": 0}.get(fault, 1)
    assert after_first["acceptedRequests"] == decided and after_first["reserved"] == 2 * decided
    assert [a.number for a in attempts] == [1, 2] and [a.fault for a in attempts] == [fault, ""]
    assert all(a.request_id == "r-one" for a in attempts) and attempts[0].ended >= attempts[0].arrived
    codes = [code for code, _ in attempts[0].answers]
    if fault in ("drop_request", "drop_answer"):
        assert first is None  # the connection closed without an answer
    elif fault in ("gateway_error", "refuse"):
        assert first is not None and first.status_code == (502 if fault == "gateway_error" else 503)
        assert first.headers["content-type"].startswith("text/plain")
    else:
        assert first is not None and first.status_code == 201
    assert codes == {"drop_request": [], "refuse": [], "duplicate": [201, 201]}.get(fault, [201])
    if fault == "duplicate":  # twice at once: one decision and its replay; the client gets the replay
        assert sorted(bool(answer.get("replayed")) for _, answer in attempts[0].answers) == [False, True]
        assert first.json()["replayed"] is True
    if fault == "delay":
        assert took >= DELAY
    assert second.status_code == 201 and second.json()["replayed"] is (decided == 1)
    assert status(shared_server, workshop)["acceptedRequests"] == 1


def test_a_request_without_the_call_header_is_logged_as_call_0(shared_server: DevServer) -> None:
    with LossyNetwork(shared_server.base_url, {1: ("drop_request",)}) as network:
        with httpx.Client(base_url=network.url, trust_env=False) as http:
            reply = http.get(status_path("lossy-no-header"))
        strangers = network.of_call(0)
    assert reply.status_code == 200 and [a.method for a in strangers] == ["GET"] and strangers[0].request_id is None


def test_an_endless_call_is_refused_each_time_and_an_earlier_networks_request_is_gone(shared_server: DevServer) -> None:
    with LossyNetwork(shared_server.base_url, {1: ("drop_request", ENDLESS)}) as network:
        replies = []
        for _ in range(4):
            try:
                replies.append(reserve_through(network, "lossy-endless", "r-never").status_code)
            except httpx.TransportError:
                replies.append(None)
        with httpx.Client(base_url=network.url, headers={CALL_HEADER: "0000:1"}, trust_env=False) as http:
            stale = http.post(reservations_path("lossy-endless"), json={"requestId": "r-stale", "seats": 1})
        attempts = network.of_call(1)
    assert replies == [None, 503, 503, 503] and [a.answers for a in attempts] == [[]] * 4
    assert stale.status_code == 410 and len(network.attempts) == 4  # not logged, not forwarded
    assert status(shared_server, "lossy-endless")["acceptedRequests"] == 0


def test_a_stall_decides_then_stays_silent_until_the_client_gives_up(shared_server: DevServer) -> None:
    with LossyNetwork(shared_server.base_url, {1: (STALL,)}) as network:
        http = httpx.Client(base_url=network.url, headers={CALL_HEADER: network.call_header(1)}, trust_env=False,
                            timeout=0.5)
        started = time.monotonic()
        with http, pytest.raises(httpx.ReadTimeout):
            http.post(reservations_path("lossy-stall"), json={"requestId": "r-stalled", "seats": 1})
        waited = time.monotonic() - started
    attempt = network.of_call(1)[0]
    assert 0.5 <= waited < 5 and [code for code, _ in attempt.answers] == [201]  # decided, the answer never sent
    assert attempt.ended - attempt.arrived < STALL_SECONDS and network.errors == []  # it ended when the client left
    assert status(shared_server, "lossy-stall")["acceptedRequests"] == 1
