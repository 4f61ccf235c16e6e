"""Concurrent bursts: N reservation requests released together, retried safely with the same requestId."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import httpx

from reservation_lab.domain.decisions import Attempt, Decision
from reservation_lab.domain.facts import BURST_SIZE
from reservation_lab.domain.routes import reservations_path
from reservation_lab.errors import LabError
from reservation_lab.runtime.cloud_env import REAL, CloudEnvironment
from reservation_lab.runtime.http import client_options

RETRY_STATUSES = frozenset({500, 502, 503, 504})
T = TypeVar("T")


def request_ids(size: int, prefix: str = "request") -> list[str]:
    """`request-1` … `request-N`, the seeds' naming."""
    return [f"{prefix}-{i}" for i in range(1, size + 1)]


def doubling_backoff(attempt: int) -> float:
    """Seconds to wait before retry number `attempt` + 1: 0.1, 0.2, 0.4, …"""
    return 0.05 * 2**attempt


async def reserve_with_retries(
    client: httpx.AsyncClient,
    url: str,
    decision: Decision,
    max_attempts: int,
    origin: float,
    backoff: Callable[[int], float] = doubling_backoff,
) -> Decision:
    """POST one reservation; retry transport errors and 5xx with the same requestId (replay makes it safe).

    Every attempt's send/answer time (seconds since `origin`) and outcome is appended to the decision.
    """
    payload = {"requestId": decision.request_id, "seats": decision.seats}
    for attempt in range(1, max_attempts + 1):
        sent = time.perf_counter() - origin
        try:
            response = await client.post(url, json=payload)
        except httpx.TransportError as exc:
            decision.attempts.append(Attempt(sent, time.perf_counter() - origin, None, type(exc).__name__))
        else:
            decision.attempts.append(Attempt(sent, time.perf_counter() - origin, response.status_code))
            decision.status_code = response.status_code
            try:
                decision.body = response.json()
            except ValueError:
                decision.body = {"error": "non_json_response", "text": response.text[:200]}
            if response.status_code not in RETRY_STATUSES:
                return decision
        if attempt < max_attempts:
            await asyncio.sleep(backoff(attempt))
    return decision


async def _send_one(
    client: httpx.AsyncClient,
    barrier: asyncio.Barrier,
    url: str,
    decision: Decision,
    max_attempts: int,
    origin: float,
) -> Decision:
    await barrier.wait()  # every request is built and waiting; release them together
    return await reserve_with_retries(client, url, decision, max_attempts, origin)


async def send_burst(
    base_url: str,
    workshop: str,
    size: int = BURST_SIZE,
    seats: int | list[int] = 1,
    prefix: str = "request",
    ids: list[str] | None = None,
    max_attempts: int = 4,
    timeout: float = 30.0,
    cloud: CloudEnvironment = REAL,
) -> list[Decision]:
    """Send `size` reservations at once (all in flight together) and return every decision.

    Await it in a notebook cell; from plain Python use `send_burst_sync`. `cloud`: the environment a workers.dev URL
    is reached from (a rehearsal's maps it to the Cloudflare double).
    """
    ids = list(ids) if ids is not None else request_ids(size, prefix)
    if not ids:
        return []
    seat_list = seats if isinstance(seats, list) else [seats] * len(ids)
    if len(seat_list) != len(ids):
        raise LabError("errors.seat_counts", requests=len(ids), counts=len(seat_list))
    decisions = [Decision(request_id, n) for request_id, n in zip(ids, seat_list, strict=True)]
    url = base_url.rstrip("/") + reservations_path(workshop)
    limits = httpx.Limits(max_connections=len(ids), max_keepalive_connections=len(ids))
    barrier = asyncio.Barrier(len(ids))
    origin = time.perf_counter()
    async with httpx.AsyncClient(timeout=timeout, limits=limits, **client_options(url, True, limits, cloud)) as client:
        await asyncio.gather(*(_send_one(client, barrier, url, d, max_attempts, origin) for d in decisions))
    return decisions


def run_outside_loop(make: Callable[[], Coroutine[Any, Any, T]], await_hint: str) -> T:
    """Run a coroutine to completion from plain Python; inside a running loop (a notebook kernel,
    where `asyncio.run` fails) refuse with a LabError naming what to `await` instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    raise LabError("errors.loop_running", hint=await_hint)


def send_burst_sync(*args: Any, **kwargs: Any) -> list[Decision]:
    """`send_burst` for scripts and tests (not inside a running event loop)."""
    return run_outside_loop(lambda: send_burst(*args, **kwargs), "send_burst")
