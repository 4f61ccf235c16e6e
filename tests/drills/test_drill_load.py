"""The load drill: for real on one `wrangler dev`, small bounds; plus its pure helpers."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from reservation_lab.domain.decisions import Attempt, Decision
from reservation_lab.drills.load import (
    LoadReport,
    add_arguments,
    check_bounds,
    check_workshop,
    parse_levels,
    percentiles,
    run_load_drill,
)
from reservation_lab.errors import LabError
from reservation_lab.runtime.ports import port_is_free
from tests.support import raises_key

LEVELS = [10, 50]
SIZES = [(200, 8), pytest.param((500, 20), marks=pytest.mark.stress)]  # (requests, workshops): 25 per workshop


@pytest.fixture(scope="module", params=SIZES, ids=lambda size: f"{size[0]}-requests")
def report(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> LoadReport:
    """200 requests per level in `./lab test`, 500 under `-m stress`."""
    requests, workshops = request.param
    return run_load_drill(requests, LEVELS, workshops, workdir=tmp_path_factory.mktemp("load") / "run",
                          progress=False, seed=7)


def test_nothing_lost_and_every_verdict_holds(report: LoadReport) -> None:
    assert report.lost == 0
    assert report.problems() == []
    assert report.ok
    assert [level.concurrency for level in report.levels] == LEVELS
    for level in report.levels:
        assert level.invariants_ok and level.checker_ok


def test_report_fields_are_sane(report: LoadReport) -> None:
    for level in report.levels:
        assert level.requests == 25 * level.workshops and level.workshops in (8, 20)
        assert level.accepted + level.rejected == level.requests
        # 25 requests of 1-2 seats per 4-seat workshop: at least 2 and at most 4 are accepted in each.
        assert 2 * level.workshops <= level.accepted <= 4 * level.workshops
        assert level.seconds > 0 and level.requests_per_second > 0
        assert 0 < level.latency_ms["p50"] <= level.latency_ms["p99"]
        assert level.end_to_end_ms["p50"] >= level.latency_ms["p50"]
        assert level.end_to_end_ms["p99"] >= level.latency_ms["p99"]
        assert level.first_try_errors == sum(level.first_try_error_kinds.values())
        assert level.retries >= level.first_try_errors
        assert level.client_cpu_share > 0
    table = report.table().splitlines()
    assert len(table) == 1 + len(LEVELS) and "req/s" in table[0] and "hold" in table[1]


def test_the_dev_server_is_gone(report: LoadReport) -> None:
    assert report.port and port_is_free(report.port)
    assert (report.workdir / "logs" / "load-drill.log").exists()


def test_check_workshop_finds_a_lie() -> None:
    fresh = {"capacity": 4, "reserved": 0, "acceptedRequests": 0, "rejectedRequests": 0, "acceptedSeats": 0}
    good = Decision("r-1", 2, 201, {"workshop": "w", "requestId": "r-1", "seats": 2, "status": "accepted",
                                    "capacity": 4, "reserved": 2, "replayed": False}, [Attempt(0, 0.01, 201)])
    after = {**fresh, "reserved": 2, "acceptedRequests": 1, "acceptedSeats": 2}
    assert check_workshop("w", [good], fresh, after) == []
    lost_write = {**after, "reserved": 0, "acceptedSeats": 0}
    assert any("grew by 0" in p for p in check_workshop("w", [good], fresh, lost_write))
    extra_row = {**after, "rejectedRequests": 1}
    assert any("1 distinct requestId was sent" in p for p in check_workshop("w", [good], fresh, extra_row))


def test_helpers_and_bounds() -> None:
    assert percentiles([]) == {"p50": 0.0, "p99": 0.0}
    assert percentiles([float(i) for i in range(1, 101)]) == {"p50": 50.0, "p99": 99.0}
    assert parse_levels("10,50,200") == [10, 50, 200]
    for bad in ("", "a", "0", "10,,x", "100000"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_levels(bad)
    with raises_key("drills.out_of_range", LabError, what="--requests", value=0):
        check_bounds(0, [10], 5)
    with raises_key("drills.out_of_range", LabError, what="--workshops", value=0):
        check_bounds(10, [10], 0)


def test_cli_options() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert (args.requests, args.concurrency, args.workshops, args.no_progress) == (2000, [10, 50, 200], 50, False)
    args = parser.parse_args(["--requests", "5", "--concurrency", "3", "--workdir", "x", "--no-progress"])
    assert (args.requests, args.concurrency, Path(args.workdir), args.no_progress) == (5, [3], Path("x"), True)
    assert callable(args.func)
