"""Watchdog: ends a dev-server process group when the Python process that started it dies.

Started with its stdin connected to a pipe whose only writer is the parent. When the parent
exits for any reason (even SIGKILL, as nbval does to kernels) the pipe reaches end-of-file
and the watchdog stops the whole group.
"""

from __future__ import annotations

import contextlib
import sys

from reservation_lab.runtime.processes import group_members, stop_process_group


def main(argv: list[str]) -> int:
    pgid = int(argv[0])
    with contextlib.suppress(KeyboardInterrupt):
        sys.stdin.buffer.read()  # blocks until the parent's end of the pipe closes
    if group_members(pgid):
        stop_process_group(pgid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
