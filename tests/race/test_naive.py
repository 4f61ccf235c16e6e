"""The naive Worker (worker/src/naive.js), run for real: same API as the correct one, but it overbooks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import json5
import pytest

from reservation_lab.domain.burst import send_burst_sync
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.config import check_run_name
from reservation_lab.domain.invariants import CAPACITY, check_burst, summarize
from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import InvariantError, LabError
from reservation_lab.paths import WORKER_DIR, WORKER_SRC
from reservation_lab.race.naive import naive_config_path, naive_server, naive_state_dir, write_naive_config
from reservation_lab.runtime.devserver import DevServer
from reservation_lab.runtime.ports import port_is_free
from reservation_lab.runtime.processes import group_members

BURST = 10
MAX_BURSTS = 5
EMPTY = {"capacity": CAPACITY, "reserved": 0, "acceptedRequests": 0, "rejectedRequests": 0, "acceptedSeats": 0}


def assert_gone(server: DevServer) -> None:
    assert group_members(server.pgid) == [], f"dev server group {server.pgid} left processes behind"
    assert port_is_free(server.port), f"port {server.port} still in use after stop"
    assert server.watchdog.poll() is not None, "the watchdog is still running"


@pytest.fixture
def naive(run_folder: RunFolder) -> Iterator[DevServer]:
    with naive_server(run_folder) as server:  # proven gone when the test's block succeeded
        yield server
    assert_gone(server)


def test_naive_config_is_local_only(run_folder: RunFolder) -> None:
    path = write_naive_config(run_folder)
    assert path == naive_config_path(run_folder) == run_folder.root / "wrangler.naive.jsonc"
    config = json.loads(path.read_text())
    template = json5.loads((WORKER_DIR / "wrangler.jsonc").read_text())
    (binding,) = template["durable_objects"]["bindings"]  # front.js is shared: the same binding name
    assert config == {
        "name": f"{run_folder.name}-naive",
        "main": "src/naive.js",
        "compatibility_date": template["compatibility_date"],
        "workers_dev": False,
        "preview_urls": False,
        "durable_objects": {"bindings": [{"name": binding["name"], "class_name": "NaiveWorkshop"}]},
        "exports": {"NaiveWorkshop": {"type": "durable-object", "storage": "sqlite"}},
    }
    assert list(config) == ["name", "main", "compatibility_date", "workers_dev", "preview_urls",
                            "durable_objects", "exports"]
    for file in ("naive.js", "front.js", "validation.js"):
        assert (run_folder.root / "src" / file).read_bytes() == (WORKER_SRC / file).read_bytes()
    with pytest.raises(LabError):
        check_run_name(config["name"])  # not a lab run name: nothing that deploys run names will take it
    assert json.loads(run_folder.config.read_text())["main"] == "src/index.js", "the real config is untouched"
    assert naive_state_dir(run_folder) != run_folder.state_dir


def test_a_burst_overbooks_and_loses_updates(naive: DevServer, run_folder: RunFolder) -> None:
    """Read, await a timer, write: within a few bursts of 10 more than 4 are accepted and the counter lags."""
    observed = []
    with LabClient(naive.base_url) as client:
        for n in range(1, MAX_BURSTS + 1):
            workshop = f"naive-burst-{n}"
            before = client.status(workshop)
            assert before == {"workshop": workshop, **EMPTY}
            decisions = send_burst_sync(naive.base_url, workshop, size=BURST)
            after = client.status(workshop)
            for d in decisions:  # every answer looks fine on its own …
                assert d.status_code in (201, 409), (d.request_id, d.status_code, d.body)
                assert d.status == ("accepted" if d.status_code == 201 else "rejected")
                assert d.body["replayed"] is False and 0 < d.reserved <= CAPACITY
            summary = summarize(decisions)
            accepted_seats = sum(d.seats for d in decisions if d.status == "accepted")
            observed.append((workshop, summary.accepted, accepted_seats, after["reserved"]))
            print(f"{workshop}: {summary.accepted} accepted, {accepted_seats} seats answered, "
                  f"durable reserved={after['reserved']}, log={after['acceptedSeats']} seats")
            # … the attempt log agrees with the answers …
            assert after["acceptedRequests"] == summary.accepted
            assert after["rejectedRequests"] == summary.rejected
            assert after["acceptedSeats"] == accepted_seats
            assert after["reserved"] <= CAPACITY
            if summary.accepted > CAPACITY and after["reserved"] < accepted_seats:
                # … but together they break the lab's invariants, and the lab's own check says so.
                with pytest.raises(InvariantError):
                    check_burst(decisions, before, after)
                break
        else:
            pytest.fail(f"no overbooking with lost updates in {MAX_BURSTS} bursts of {BURST}: {observed}")

        winner = next(d for d in decisions if d.status == "accepted")
        replay = client.reserve(workshop, winner.request_id)
        assert replay.status_code == 201
        assert replay.body == {**winner.body, "replayed": True}
    assert "naive_reservation_decided" in (run_folder.logs_dir / "naive.log").read_text()
    assert not run_folder.state_dir.exists(), "the naive server keeps its state in naive-state/"
    assert naive_state_dir(run_folder).is_dir()


BAD_INPUT = [
    ("POST", "/workshops/launch-day/reservations", b"seats=1"),
    ("POST", "/workshops/launch-day/reservations", json.dumps({"requestId": "request-x", "seats": 5}).encode()),
    ("POST", "/workshops/launch-day/reservations", json.dumps({"requestId": "ab", "seats": 1}).encode()),
    ("POST", "/workshops/launch-day/reservations", b"{" + b" " * 5000 + b"}"),
    ("GET", "/workshops/Launch-Day/status", None),
    ("GET", "/workshops/launch-day/reservations", None),
    ("POST", "/workshops/launch-day/status", b"{}"),
    ("POST", "/health", b"{}"),
    ("GET", "/", None),
    ("GET", "/workshops/launch-day/other", None),
]


def test_same_api_as_the_correct_worker(
    naive: DevServer, dev_server_factory: Callable[..., DevServer]
) -> None:
    """One request at a time, the naive Worker answers exactly like the real one: routes, codes, bodies."""
    real_server = dev_server_factory()
    with LabClient(naive.base_url) as naive, LabClient(real_server.base_url) as real:
        assert naive.health() == real.health()
        for method, path, body in BAD_INPUT:
            a = naive.request(method, path, content=body)
            b = real.request(method, path, content=body)
            assert (a.status_code, a.json(), a.headers.get("allow")) == (
                b.status_code, b.json(), b.headers.get("allow")), (method, path)
            assert 400 <= a.status_code < 500 and set(a.json()) == {"error"}
        assert naive.status("launch-day") == real.status("launch-day") == {"workshop": "launch-day", **EMPTY}

        steps = [("request-1", 1), ("request-1", 1), ("request-2", 4), ("request-3", 3), ("request-4", 1)]
        for request_id, seats in steps:
            a, b = naive.reserve("launch-day", request_id, seats), real.reserve("launch-day", request_id, seats)
            assert a == b, (request_id, seats)
        assert [a.status_code, a.body["reserved"]] == [409, 4]
        assert naive.status("launch-day") == real.status("launch-day") == {
            "workshop": "launch-day", "capacity": 4, "reserved": 4,
            "acceptedRequests": 2, "rejectedRequests": 2, "acceptedSeats": 4,
        }
