"""The race demo for real: the naive Worker loses updates and overbooks, the atomic one stays serial."""

from __future__ import annotations

import asyncio

from reservation_lab.domain.checker import check_history
from reservation_lab.domain.runs import RunFolder
from reservation_lab.race.demo import race_naive_and_atomic
from reservation_lab.runtime.processes import processes_mentioning


def test_race_shows_the_bug_and_the_fix(run_folder: RunFolder) -> None:
    race = asyncio.run(race_naive_and_atomic(run_folder, burst_size=10, max_bursts=3))
    assert 1 <= race.bursts <= 3
    assert race.naive.overbooked or race.naive.lost_updates
    assert race.naive.workshop == race.atomic.workshop
    assert [d.request_id for d in race.naive.decisions] == [d.request_id for d in race.atomic.decisions]

    naive = check_history(race.naive.decisions, race.naive.before, race.naive.after)
    atomic = check_history(race.atomic.decisions, race.atomic.before, race.atomic.after)
    assert not naive.ok and naive.problem
    assert atomic.ok and len(atomic.order) == 10
    assert race.atomic.facts() == {"accepted": 4, "rejected": 6, "acceptedSeats": 4, "durableReserved": 4,
                                   "capacity": 4}
    assert not race.atomic.overbooked and not race.atomic.lost_updates
    assert processes_mentioning(str(run_folder.root)) == [], "the race must stop both dev servers"


def test_checker_accepts_every_atomic_burst_in_a_row(run_folder: RunFolder, dev_server_factory) -> None:
    """The real Worker passes the checker on every burst, also when the workshop is already partly full."""
    from reservation_lab.domain.burst import send_burst_sync
    from reservation_lab.domain.client import LabClient

    server = dev_server_factory()
    with LabClient(server.base_url) as client:
        for round_number, seats in enumerate([[1] * 10, [2, 1, 3, 1, 4, 1], [1, 2, 1, 1]], start=1):
            before = client.status("rounds")
            decisions = send_burst_sync(server.base_url, "rounds", seats=seats, prefix=f"round-{round_number}",
                                        size=len(seats))
            after = client.status("rounds")
            result = check_history(decisions, before, after)
            assert result.ok, result.problem


def test_both_servers_start_at_once_and_a_failed_start_stops_the_other(run_folder: RunFolder) -> None:
    """The race starts its two dev servers together; if the atomic one cannot (its port is taken), the naive one
    that did start is stopped before the error reaches the learner."""
    import socket
    from contextlib import ExitStack

    import pytest

    from reservation_lab.errors import PortBusyError
    from reservation_lab.race.demo import _start_both

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        with pytest.raises(PortBusyError), ExitStack() as held:
            _start_both(run_folder, taken, held)
    assert processes_mentioning(str(run_folder.root)) == []
