"""The race demo: the same burst against the naive Worker and the atomic one, one after the other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reservation_lab.domain.burst import request_ids, send_burst
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.decisions import Decision
from reservation_lab.domain.facts import BURST_SIZE
from reservation_lab.domain.routes import fresh_workshop
from reservation_lab.domain.runs import RunFolder, serving
from reservation_lab.race.naive import naive_server
from reservation_lab.runtime.context import QUIET, Context


@dataclass(frozen=True)
class BurstRun:
    """One burst against one Worker: durable status before, every decision, durable status after."""

    workshop: str
    before: dict[str, Any]
    decisions: list[Decision]
    after: dict[str, Any]

    @property
    def accepted_seats(self) -> int:
        return sum(d.seats for d in self.decisions if d.status == "accepted")

    @property
    def overbooked(self) -> bool:
        """More seats were confirmed than the workshop has."""
        return self.before["reserved"] + self.accepted_seats > self.after["capacity"]

    @property
    def lost_updates(self) -> bool:
        """The durable counter grew by less than the seats the answers confirmed."""
        return self.after["reserved"] - self.before["reserved"] < self.accepted_seats

    def facts(self) -> dict[str, int]:
        return {"accepted": sum(d.status == "accepted" for d in self.decisions),
                "rejected": sum(d.status == "rejected" for d in self.decisions),
                "acceptedSeats": self.accepted_seats, "durableReserved": self.after["reserved"],
                "capacity": self.after["capacity"]}


@dataclass(frozen=True)
class Race:
    """The naive and the atomic Worker on the same burst; `bursts` = how many bursts it took to see the race."""

    naive: BurstRun
    atomic: BurstRun
    bursts: int


async def _burst(base_url: str, workshop: str, ids: list[str]) -> BurstRun:
    with LabClient(base_url) as client:
        before = client.status(workshop)
        decisions = await send_burst(base_url, workshop, ids=ids)
        after = client.status(workshop)
    return BurstRun(workshop, before, decisions, after)


async def race_naive_and_atomic(
    run: RunFolder, workshop: str = "race-demo", burst_size: int = BURST_SIZE, port: int = 0, max_bursts: int = 3,
    ctx: Context = QUIET,
) -> Race:
    """The same burst against both Workers, one server at a time (each `wrangler dev` is ~370 MiB: two at once
    were 85 % of a learner's peak memory). The naive Worker first, repeated on a fresh workshop until it overbooks
    or loses an update or `max_bursts` is reached; its server is stopped, then the atomic Worker gets the same
    burst (same request IDs) on the last workshop name; its server is stopped afterwards."""
    ids = request_ids(burst_size)
    with naive_server(run, ctx) as naive:
        for attempt in range(1, max_bursts + 1):  # noqa: B007 - returned as the number of bursts it took
            name = fresh_workshop(workshop)  # a re-run of the race cell gets fresh objects, not replays
            naive_run = await _burst(naive.base_url, name, ids)
            if naive_run.overbooked or naive_run.lost_updates:
                break
    with serving(run, port=port, log_name="race.log", ctx=ctx) as atomic:
        atomic_run = await _burst(atomic.base_url, name, ids)
    return Race(naive=naive_run, atomic=atomic_run, bursts=attempt)
