"""One way to wait: poll a condition until it holds or a deadline passes."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(
    condition: Callable[[], bool],
    timeout: float,
    interval: float = 0.05,
    on_tick: Callable[[float], None] | None = None,
) -> bool:
    """Poll `condition` every `interval` s for up to `timeout` s; True as soon as it holds, False at the deadline.

    `on_tick`, if given, is called with the seconds waited so far before each poll after the first.
    """
    started = time.monotonic()
    deadline = started + timeout
    while True:
        if condition():
            return True
        now = time.monotonic()
        if now >= deadline:
            return False
        if on_tick is not None:
            on_tick(now - started)
        time.sleep(min(interval, deadline - now))
