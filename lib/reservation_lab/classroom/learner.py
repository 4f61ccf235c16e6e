"""One simulated learner, the way a browser drives their JupyterLab (JupyterHub's traffic simulators do the same).

Logs in (the hub makes the user and a token of their own), starts their server, gets the course into their home as
the README's launch link does (nbgitpuller's `git-pull` API from this checkout; a copy through the contents API where
the hub has no nbgitpuller), opens their language's notebook through the Jupyter server's REST API, starts the
`reservation-lab` kernel and runs every code cell over the kernel's websocket, one after the other, as Run All does:
the first error stops it. Each cell's end is recorded (seconds since the learner started) for the progress plot.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from reservation_lab.classroom.hub import HubAPI
from reservation_lab.paths import REPO_ROOT

KERNEL = "reservation-lab"
COURSE_DIR = "course"  # where the course lands in each learner's home
CELL_TIMEOUT = 600.0
# Run All pressed in a second tab: a person's two clicks are tens of milliseconds apart at the least, and JupyterLab
# stamps each request to the millisecond. Made in the same millisecond, the two tabs' requests could not be told
# apart by when they were made (a suite run once made them so, and no cell was refused).
TAB_GAP = 0.05
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Outcome:
    """What happened to one learner: passed, where it failed, the cells' end times, the Run All time."""

    name: str
    language: str
    workshop: str
    got_course_by: str = ""
    passed: bool = False
    failed_cell: int | None = None
    error: str = ""
    started: float = 0.0  # monotonic time the learner began (login)
    run_all_seconds: float = 0.0
    cells_done: list[float] = field(default_factory=list)  # seconds since `started` at each cell's end
    server_pid: int | None = None
    tab_errors: list[list[tuple[int, str]]] = field(default_factory=list)  # Run All in several tabs at once

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key not in ("started",)}


def course_source(root: Path = REPO_ROOT) -> tuple[str, str | None]:
    """This checkout as nbgitpuller clones it: its path and branch. On a detached HEAD (a CI checkout) a local
    branch at the same commit stands in (nbgitpuller would guess `origin/<default>`, which a local clone lacks);
    None when there is none (the learners then get a copy, and the report says so)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout.strip()

    branch = git("rev-parse", "--abbrev-ref", "HEAD")
    if branch == "HEAD":
        branch = next(iter(git("for-each-ref", "--points-at", "HEAD", "--format=%(refname:short)",
                               "refs/heads").splitlines()), "")
    return str(root), (branch or None)


def parameters_with(source: str, overrides: dict[str, Any]) -> str:
    """The parameters cell as a learner edits it: each overridden name's line replaced."""
    lines = source.splitlines()
    for name, value in overrides.items():
        literal = json.dumps(value) if isinstance(value, str) else repr(value)
        lines = [f"{name} = {literal}" if line.split("=")[0].strip() == name else line for line in lines]
    return "\n".join(lines)


@dataclass
class Tab:
    """One browser tab's connection to the kernel: its websocket and its session id."""

    socket: Any
    session: str


class Learner:
    """A learner's session against their server: REST for contents and sessions, a websocket for the kernel."""

    def __init__(self, hub: HubAPI, name: str, language: str, workshop: str,
                 overrides: dict[str, Any] | None = None) -> None:
        self.hub = hub
        self.outcome = Outcome(name=name, language=language, workshop=workshop)
        self.overrides = {"workshop": workshop, **(overrides or {})}
        self.token = ""
        self.kernel_id = ""
        self.cell_started: asyncio.Event | None = None  # set when the cell `watch_cell` begins (for fault drills)
        self.watch_cell: int | None = None
        self.tabs = 1  # >1: the notebook open in that many tabs, Run All pressed in each at once
        self.after_run_all: Callable[[], Awaitable[None]] | None = None  # e.g. the drill's idle measurement

    @property
    def base(self) -> str:
        return f"{self.hub.url.rstrip('/')}/user/{self.outcome.name}"

    def _http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base, headers={"Authorization": f"token {self.token}"},
                                 timeout=120, trust_env=False)

    async def run(self) -> Outcome:
        """Everything a learner does, in order; any failure is recorded, never raised."""
        outcome = self.outcome
        outcome.started = time.monotonic()
        try:
            await asyncio.to_thread(self._log_in)
            async with self._http() as http:
                path = await self._get_course(http)
                notebook = (await self._json(http.get(f"/api/contents/{quote(path)}", params={"content": 1})))
                session = await self._json(http.post("/api/sessions", json={
                    "path": path, "type": "notebook", "name": Path(path).name, "kernel": {"name": KERNEL}}))
                self.kernel_id = session["kernel"]["id"]
                if self.tabs > 1:
                    await self._run_all_in_tabs(http, notebook["content"])
                begun = time.monotonic()
                await self._run_all(notebook["content"])
                outcome.run_all_seconds = time.monotonic() - begun
                outcome.passed = outcome.failed_cell is None
                if self.after_run_all is not None:  # the notebook still open, its kernel idle
                    await self.after_run_all()
                await http.delete(f"/api/sessions/{session['id']}")
        except Exception as exc:  # noqa: BLE001 - the drill reports every learner, whatever stopped them
            outcome.error = outcome.error or f"{type(exc).__name__}: {exc}"[:500]
        return outcome

    def _log_in(self) -> None:
        self.hub.create_user(self.outcome.name)
        self.hub.start_server(self.outcome.name)
        self.token = self.hub.user_token(self.outcome.name)
        self.outcome.server_pid = self.hub.server_pid(self.outcome.name)

    async def _json(self, pending: Any) -> Any:
        answer = await pending
        answer.raise_for_status()
        return answer.json()

    async def _get_course(self, http: httpx.AsyncClient) -> str:
        """The notebook's path in the learner's home, after nbgitpuller (or a copy) brought the course there."""
        notebook = f"{COURSE_DIR}/notebooks/{self.outcome.language}/concurrent-reservations.ipynb"
        repo, branch = course_source()
        params = {"repo": repo, "targetpath": COURSE_DIR, **({"branch": branch} if branch else {})}
        pulled = await http.get("/git-pull/api", params=params, timeout=300)
        if pulled.status_code == 200 and '"phase": "finished"' in pulled.text:
            self.outcome.got_course_by = "nbgitpuller"
            return notebook
        self.outcome.got_course_by = "copy"  # no nbgitpuller on this hub: the notebook through the contents API
        content = json.loads((REPO_ROOT / "notebooks" / self.outcome.language /
                              "concurrent-reservations.ipynb").read_text())
        for folder in (COURSE_DIR, f"{COURSE_DIR}/notebooks", f"{COURSE_DIR}/notebooks/{self.outcome.language}"):
            await http.put(f"/api/contents/{folder}", json={"type": "directory"})
        await self._json(http.put(f"/api/contents/{quote(notebook)}",
                                  json={"type": "notebook", "format": "json", "content": content}))
        return notebook

    def _sources(self, notebook: dict[str, Any]) -> list[str]:
        """The code cells' sources, the parameters cell as this learner edits it."""
        sources = []
        for cell in (c for c in notebook["cells"] if c["cell_type"] == "code"):
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                source = parameters_with(source, self.overrides)
            sources.append(source)
        return sources

    async def _connect(self) -> Tab:
        """A websocket to the kernel, as one browser tab opens it (a session id of its own)."""
        url = self.base.replace("http", "ws", 1) + f"/api/kernels/{self.kernel_id}/channels"
        session = uuid.uuid4().hex
        request = HTTPRequest(f"{url}?session_id={session}", headers={"Authorization": f"token {self.token}"})
        return Tab(await websocket_connect(request, max_message_size=64 * 1024 * 1024), session)

    async def _run_all(self, notebook: dict[str, Any]) -> None:
        tab = await self._connect()
        try:
            for index, source in enumerate(self._sources(notebook)):
                if index == self.watch_cell and self.cell_started is not None:
                    self.cell_started.set()
                error = await self._execute(tab, source)
                self.outcome.cells_done.append(time.monotonic() - self.outcome.started)
                if error:
                    self.outcome.failed_cell, self.outcome.error = index, error
                    return
        finally:
            tab.socket.close()

    async def _run_all_in_tabs(self, http: httpx.AsyncClient, notebook: dict[str, Any]) -> None:
        """The same notebook open in `tabs` browser tabs (one kernel: jupyter_server keeps one session per path),
        Run All pressed in each at once: every tab sends all its execute requests without waiting, as JupyterLab's
        Run All does. What each tab saw goes to `tab_errors` (cell index and error, cells that ran are left out);
        then the learner does what the course tells them: restart the kernel and Run All in one tab."""
        sources = self._sources(notebook)
        tabs = [await self._connect() for _ in range(self.tabs)]
        try:
            batches = []
            for tab in tabs:  # Run All pressed in one tab after the other: each tab's requests made in one go
                batches.append([self._request(tab, source) for source in sources])
                await asyncio.sleep(TAB_GAP)
            for row in zip(*batches, strict=True):  # both pending at the kernel, which takes the tabs' requests in turn
                for tab, (_, message) in zip(tabs, row, strict=True):
                    await tab.socket.write_message(message)
            seen = await asyncio.gather(*(self._collect(tab, [i for i, _ in batch])
                                          for tab, batch in zip(tabs, batches, strict=True)))
        finally:
            for tab in tabs:
                tab.socket.close()
        self.outcome.tab_errors = [[(i, e) for i, e in enumerate(errors) if e] for errors in seen]
        await self._json(http.post(f"/api/kernels/{self.kernel_id}/restart"))

    async def _collect(self, tab: Tab, ids: list[str]) -> list[str]:
        """Per request of a tab's Run All: '' when it ran, else its error (`ename: evalue` and the traceback the
        learner sees) or 'aborted' (the kernel dropped it after an earlier error)."""
        replies = await self._replies(tab, ids, CELL_TIMEOUT * 2, idle=False, traceback=True)
        return [replies[msg_id] for msg_id in ids]

    def _request(self, tab: Tab, code: str) -> tuple[str, str]:
        """One execute_request as JupyterLab makes it (the tab's session id, the moment it was made,
        stop_on_error): its msg_id and the message."""
        msg_id = uuid.uuid4().hex
        return msg_id, json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": self.outcome.name,
                       "session": tab.session, "version": "5.3",
                       "date": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}})

    async def _send(self, tab: Tab, code: str) -> str:
        """Send one execute_request; its msg_id."""
        msg_id, message = self._request(tab, code)
        await tab.socket.write_message(message)
        return msg_id

    async def _execute(self, tab: Tab, code: str) -> str:
        """Send one execute_request; wait for its reply and the kernel's idle; the error text, or ''."""
        msg_id = await self._send(tab, code)
        return (await self._replies(tab, [msg_id], CELL_TIMEOUT, idle=True, traceback=False))[msg_id]

    async def _replies(self, tab: Tab, ids: list[str], timeout: float, idle: bool, traceback: bool) -> dict[str, str]:
        """Read the tab's messages until each request in `ids` has its reply (`idle`: and the kernel went idle after
        the last one): per request '' or what went wrong: its error (`ename: evalue`, with the `traceback` the
        learner sees, ANSI colours removed), a reply's status ('aborted'), the kernel dying (jupyter_server's
        restarter says so) or the websocket closing before the reply."""
        errors, replied, idle_after_last = dict.fromkeys(ids, ""), set(), not idle
        deadline = time.monotonic() + timeout

        def unanswered(reason: str) -> dict[str, str]:  # a request is done once replied (and idle, if waited for)
            return {i: errors[i] or ("" if i in replied and idle_after_last else reason) for i in ids}

        while len(replied) < len(ids) or not idle_after_last:
            raw = await asyncio.wait_for(tab.socket.read_message(), timeout=max(1.0, deadline - time.monotonic()))
            if raw is None:
                return unanswered("the kernel's websocket closed")
            message = json.loads(raw)
            kind = message.get("msg_type") or message.get("header", {}).get("msg_type")
            parent, content = message.get("parent_header", {}).get("msg_id"), message.get("content", {})
            if kind == "status" and content.get("execution_state") in ("restarting", "dead"):
                return unanswered(f"the kernel died ({content['execution_state']})")
            if parent not in errors:
                continue
            if kind == "error":
                said = f"{content.get('ename')}: {content.get('evalue')}"
                errors[parent] = (f"{said}\n{_ANSI.sub('', chr(10).join(content.get('traceback', [])))}"
                                  if traceback else said[:500])
            elif kind == "execute_reply":
                replied.add(parent)
                if content.get("status") != "ok" and not errors[parent]:
                    errors[parent] = str(content.get("status"))
            elif kind == "status" and content.get("execution_state") == "idle" and parent == ids[-1]:
                idle_after_last = True
        return errors
