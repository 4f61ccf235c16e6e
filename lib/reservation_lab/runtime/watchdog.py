"""Watchdog: ends a dev-server process group when the Python process that started it dies.

Started *before* the server, with its stdin connected to a pipe whose only writer is the parent and with a marker
the server's environment will carry. The parent then starts the server and writes its process group ID into the
pipe. When the parent exits for any reason (even SIGKILL, as nbval does to kernels) the pipe reaches end-of-file
and the watchdog stops the group; had the parent died between starting the server and writing its group, the
watchdog finds the server by the marker in its environment (and its workerd by theirs, inherited). So there is no
moment at which a server runs without a watchdog.
"""

from __future__ import annotations

import contextlib
import sys

from reservation_lab.runtime.processes import environment_of, group_members, live_processes, stop_process_group

MARKER = "RESERVATION_LAB_DEV_SERVER"  # the variable a server's processes carry: the watchdog's marker


def marked_groups(marker: str) -> set[int]:
    """The process groups of live processes whose environment carries `marker`."""
    return {info.pgid for info in live_processes() if environment_of(info.pid).get(MARKER) == marker}


def main(argv: list[str]) -> int:
    marker = argv[0]
    groups: set[int] = set()
    with contextlib.suppress(KeyboardInterrupt, ValueError):
        line = sys.stdin.buffer.readline()  # the server's group, once the parent started it
        if line.strip():
            groups.add(int(line))
            sys.stdin.buffer.read()  # blocks until the parent's end of the pipe closes
    for pgid in groups or marked_groups(marker):
        if group_members(pgid):
            stop_process_group(pgid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
