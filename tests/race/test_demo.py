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


def test_one_dev_server_at_a_time_and_a_failed_start_leaves_nothing(run_folder: RunFolder) -> None:
    """The race holds one `wrangler dev` at a time (two at once were 85 % of a learner's peak memory): sampled
    while it runs, never two wrangler processes of this run folder; when the atomic server cannot start (its port
    is taken), the error reaches the learner and no process of the run is left."""
    import socket
    import threading

    import pytest

    from reservation_lab.errors import PortBusyError

    most, done = [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            # a server is a process group (start_new_session): a child wrangler forks (workerd, esbuild) shows
            # wrangler's own command line until it execs, in the same group (seen once on a loaded machine)
            servers = {p.pgid for p in processes_mentioning(str(run_folder.root)) if "cli.js" in p.cmdline}
            most[0] = max(most[0], len(servers))
            done.wait(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            taken = holder.getsockname()[1]
            with pytest.raises(PortBusyError):
                asyncio.run(race_naive_and_atomic(run_folder, burst_size=10, port=taken, max_bursts=1))
    finally:
        done.set()
        sampler.join()
    assert most[0] == 1, f"{most[0]} wrangler dev servers of the run at once"
    assert processes_mentioning(str(run_folder.root)) == []
