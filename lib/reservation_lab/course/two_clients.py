"""One notebook run from two places at once: refused with one sentence before the two runs interleave.

Two browser tabs (or windows) of one notebook share one kernel and one namespace. When Run All is pressed in both,
the kernel takes their queued cells in turn (ZeroMQ serves the tabs' connections alternately), so each tab's cells
overwrite the other's `run`, `server`, `decisions`. JupyterLab stamps every request with its connection's session
id and the moment it was made. In one tab these stamps only grow; a cell whose request was made *before* the cell
the kernel ran last, from another connection, waited in the queue while another tab's cells ran: that cell is
refused (the course's error, in the learner's language), and the kernel then drops every queued cell of both tabs
(Run All sends `stop_on_error`). A reloaded page (a new connection, its cells made later) runs as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reservation_lab.errors import LabError

_REFUSE = "__import__('reservation_lab.course.two_clients', fromlist=['refuse']).refuse()\n"


@dataclass
class LastRequest:
    """The session id and creation time of the request whose cell the kernel ran last."""

    session: str = ""
    made: datetime | None = None


def refuse() -> None:
    """What a refused cell runs instead of its code."""
    raise LabError("errors.two_clients")


def interleaved(last: LastRequest, session: str, made: Any) -> bool:
    """True for a request from another connection made before the last one that ran."""
    if not isinstance(made, datetime) or last.made is None or not session or session == last.session:
        return False
    try:
        return made < last.made
    except TypeError:  # one stamp with a time zone, one without: cannot tell
        return False


def install(shell: Any) -> bool:
    """Guard the kernel's cells, once: the setup cell run again (by another tab, too) keeps the guard and what it
    remembers, or the other tab's next queued cell would pass; False where there is no kernel request to read."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None or not hasattr(kernel, "get_parent"):
        return False
    if any(getattr(t, "__name__", "") == "_two_clients_guard" for t in shell.input_transformers_post):
        return True
    last = LastRequest()

    def _two_clients_guard(lines: list[str]) -> list[str]:
        header = (kernel.get_parent("shell") or {}).get("header", {})
        if header.get("msg_type") != "execute_request":
            return lines
        session, made = str(header.get("session", "")), header.get("date")
        if interleaved(last, session, made):
            return [_REFUSE]
        last.session, last.made = session, made if isinstance(made, datetime) else last.made
        return lines

    shell.input_transformers_post.append(_two_clients_guard)
    return True
