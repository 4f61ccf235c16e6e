"""exercises.external_check: the check service fails the first check of each requestId it is told to, once, and
says which it failed; every other check passes after 10-19 ms."""

from __future__ import annotations

import time

import httpx

from reservation_lab.exercises.external_check import ExternalCheck


def test_a_check_told_to_fail_fails_once_and_is_reported() -> None:
    check = ExternalCheck()
    try:
        with httpx.Client(trust_env=False, timeout=10) as client:
            def ask(request_id: str) -> int:
                return client.post(check.url, json={"requestId": request_id, "seats": 1}).status_code

            check.fail_first({"r1-2"})
            started = time.monotonic()
            assert ask("r1-1") == 200
            assert time.monotonic() - started >= 0.010  # the service's own wait, as the lab's timer waits
            assert ask("r1-2") == 503
            assert ask("r1-2") == 200  # its retry passes
            assert check.take_failed() == {"r1-2"}
            assert check.take_failed() == set()
            check.fail_first({"r2-1"})
            assert check.take_failed() == set()  # a round's end forgets what its requests never asked
            assert ask("r2-1") == 200
            assert ask("not json at all") == 200 and client.post(check.url, content=b"{").status_code == 200
    finally:
        check.close()


def test_a_round_of_checks_at_once_is_answered_whole() -> None:
    """Thirty-two checks at the same moment (a large round sends 16): none is refused at the door (http.server's
    default backlog of 5 refused some, and the Worker answered them 500)."""
    from concurrent.futures import ThreadPoolExecutor

    check = ExternalCheck()
    try:
        def ask(n: int) -> int:
            with httpx.Client(trust_env=False, timeout=10) as client:
                return client.post(check.url, json={"requestId": f"r1-{n}", "seats": 1}).status_code

        with ThreadPoolExecutor(32) as pool:
            assert list(pool.map(ask, range(32))) == [200] * 32
    finally:
        check.close()
