"""The Worker on the real runtime (wrangler dev: workerd + SQLite): the lab's invariants.

The tests share one dev server (each on workshops of its own names: a workshop is its own object and state); the
restart test starts its own two.
"""

from __future__ import annotations

import asyncio

import httpx

from reservation_lab.domain.burst import send_burst, send_burst_sync
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.invariants import check_burst, durable_view, expected_summary, summarize
from reservation_lab.runtime.devserver import DevServer


def test_ten_concurrent_requests_four_accepted(shared_client: LabClient, shared_server: DevServer) -> None:
    before = shared_client.status("launch-day")
    decisions = send_burst_sync(shared_server.base_url, "launch-day", 10)
    after = shared_client.status("launch-day")
    summary = check_burst(decisions, before, after)
    assert summary == expected_summary(10)
    assert summary.as_dict() == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    assert all(d.reserved <= 4 for d in decisions)
    assert sorted(d.reserved for d in decisions if d.status == "accepted") == [1, 2, 3, 4]
    assert durable_view(after) == {
        "capacity": 4, "reserved": 4, "acceptedRequests": 4, "rejectedRequests": 6, "acceptedSeats": 4,
    }
    assert after["workshop"] == "launch-day"
    for d in decisions:
        assert set(d.body) == {"workshop", "requestId", "seats", "status", "capacity", "reserved", "replayed"}
        assert d.body["workshop"] == "launch-day" and d.body["requestId"] == d.request_id


def test_restart_replay_and_late_request(dev_server_factory) -> None:
    server = dev_server_factory()
    decisions = send_burst_sync(server.base_url, "launch-day", 10)
    first = {d.request_id: d for d in decisions}["request-1"]
    server.stop()

    restarted = dev_server_factory(log_name="dev-restarted.log")
    with LabClient(restarted.base_url) as client:
        assert durable_view(client.status("launch-day"))["reserved"] == 4
        replay = client.reserve("launch-day", "request-1")
        assert replay.status_code == (201 if first.status == "accepted" else 409)
        assert replay.body["replayed"] is True
        assert (replay.body["status"], replay.body["reserved"]) == (first.status, first.reserved)
        status = client.status("launch-day")
        assert status["acceptedRequests"] + status["rejectedRequests"] == 10, "a replay must add no attempt"
        late = client.reserve("launch-day", "request-after-restart")
        assert (late.status_code, late.body["status"], late.body["replayed"]) == (409, "rejected", False)
        again = client.reserve("launch-day", "request-after-restart")
        assert (again.status_code, again.body["replayed"]) == (409, True)
        assert durable_view(client.status("launch-day")) == {
            "capacity": 4, "reserved": 4, "acceptedRequests": 4, "rejectedRequests": 7, "acceptedSeats": 4,
        }


def test_same_request_id_ten_times_makes_one_attempt(shared_client: LabClient, shared_server: DevServer) -> None:
    decisions = send_burst_sync(shared_server.base_url, "same-id", ids=["request-same"] * 10)
    assert [d.status for d in decisions] == ["accepted"] * 10
    assert sum(not d.body["replayed"] for d in decisions) == 1
    assert {d.reserved for d in decisions} == {1}
    status = shared_client.status("same-id")
    assert (status["reserved"], status["acceptedRequests"], status["rejectedRequests"]) == (1, 1, 0)


def test_mixed_seat_sizes_over_several_workshops(shared_client: LabClient, shared_server: DevServer) -> None:
    async def all_bursts():
        plans = {f"mixed-{w}": [1 + (i * (w + 1)) % 4 for i in range(12)] for w in range(4)}
        results = await asyncio.gather(*(
            send_burst(shared_server.base_url, name, seats=seats, prefix=f"req-{name}", ids=None, size=len(seats))
            for name, seats in plans.items()
        ))
        return dict(zip(plans, results, strict=True))

    zero = {"capacity": 4, "reserved": 0, "acceptedRequests": 0, "rejectedRequests": 0, "acceptedSeats": 0}
    for name, decisions in asyncio.run(all_bursts()).items():
        status = shared_client.status(name)
        check_burst(decisions, zero, status)
        accepted_seats = sum(d.seats for d in decisions if d.status == "accepted")
        assert status["reserved"] == accepted_seats == status["acceptedSeats"] <= 4
        summary = summarize(decisions)
        assert summary.accepted + summary.rejected == 12
        # Every rejection was right: at its moment the seats did not fit.
        for d in decisions:
            if d.status == "rejected":
                assert d.reserved + d.seats > 4


def test_workshops_are_separate_objects(shared_client: LabClient, shared_server: DevServer) -> None:
    send_burst_sync(shared_server.base_url, "alpha", 6)
    assert shared_client.status("alpha")["reserved"] == 4
    assert shared_client.status("beta")["reserved"] == 0


def test_decision_log_line_is_json(shared_client: LabClient, shared_server: DevServer) -> None:
    import json
    import time

    shared_client.reserve("logged", "request-logged", 2)
    deadline = time.monotonic() + 5
    lines: list[dict] = []
    while not any(line.get("workshop") == "logged" for line in lines) and time.monotonic() < deadline:
        lines = []
        for raw in shared_server.log_text().splitlines():
            start = raw.find('{"event"')
            if start >= 0:
                lines.append(json.loads(raw[start:]))
        time.sleep(0.1)
    logged = [line for line in lines if line.get("workshop") == "logged"]  # the server is the module's
    assert logged and {"event": "reservation_decided", "workshop": "logged", "requestId": "request-logged", "seats": 2,
                       "status": "accepted", "reserved": 2, "replayed": False}.items() <= logged[0].items()


def test_health(shared_server: DevServer) -> None:
    response = httpx.get(f"{shared_server.base_url}/health", trust_env=False)
    assert (response.status_code, response.json()) == (200, {"status": "ok"})
    assert response.headers["content-type"].startswith("application/json")
