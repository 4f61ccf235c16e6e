"""exercises.between_steps: the hook a transfer Worker calls between its two steps answers at once, except for a
transfer armed to restart there: then the restart runs once (a retry passes), and the call waits for it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx

from reservation_lab.exercises.between_steps import BetweenSteps


def test_an_armed_transfer_restarts_once_and_its_call_waits_for_the_restart(tmp_path: Path) -> None:
    restarted = threading.Event()
    restarts: list[float] = []

    def restart() -> None:
        time.sleep(0.3)
        restarts.append(time.monotonic())
        restarted.set()

    hook = BetweenSteps(restart)
    try:
        hook.arm({"t-2"})
        with httpx.Client(trust_env=False, timeout=10) as client:
            assert client.get(hook.url, params={"transfer": "t-1"}).status_code == 204 and not restarted.is_set()
            asked = time.monotonic()
            assert client.get(hook.url, params={"transfer": "t-2"}).status_code == 204
            assert restarted.is_set() and restarts[0] > asked  # answered only once the restart had run
            assert client.get(hook.url, params={"transfer": "t-2"}).status_code == 204  # the retry passes
        assert hook.settle() == 1 and len(restarts) == 1 and hook.settle() == 0  # each restart counted once
        assert hook.calls == ["t-1", "t-2", "t-2"]
        hook.arm({"t-3"})
        hook.reset()  # the trial ended before t-3 reached the hook: it passes
        assert httpx.get(hook.url, params={"transfer": "t-3"}, trust_env=False, timeout=10).status_code == 204
        assert hook.settle() == 0
    finally:
        hook.close()
    try:
        httpx.get(hook.url, timeout=2, trust_env=False)
        raise AssertionError("the hook still answers after close()")
    except httpx.TransportError:
        pass


def test_a_restart_that_fails_is_raised_by_settle_not_lost_on_the_hooks_thread() -> None:
    """A grade must not go on against a server that did not come back: what the restart raised reaches the grader."""
    def restart() -> None:
        raise RuntimeError("the server did not start")

    hook = BetweenSteps(restart)
    try:
        hook.arm({"t-1"})
        assert httpx.get(hook.url, params={"transfer": "t-1"}, trust_env=False, timeout=10).status_code == 204
        try:
            hook.settle()
            raise AssertionError("settle() did not raise the restart's error")
        except RuntimeError as error:
            assert str(error) == "the server did not start"
        assert hook.settle() == 0  # raised once
    finally:
        hook.close()
