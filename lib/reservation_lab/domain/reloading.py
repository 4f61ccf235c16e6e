"""One reloading `wrangler dev`: a run folder whose `src/index.js` is swapped while the server keeps running.

The experiments' workbench (each variant of the learner's Worker) and the exercises' grader (each Worker to judge)
are this one machine: serve a source, swap it (written atomically, so a build never sees half of it; wrangler dev
rebuilds and workerd drops every object), and when no reload is logged within `reload_wait` (wrangler's file
watcher can miss or lag a change on a busy machine, and a source that does not build never reloads) restart the
server on the same state, which serves the file as it is then. `restart()` is also the lab's step 4 on demand.
"""

from __future__ import annotations

from pathlib import Path

from reservation_lab.domain.runs import HeldServers, RunFolder
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.devserver import NOTHING_LEFT, DevServer, write_atomically

RELOAD_WAIT = 10.0  # seconds to wait for wrangler dev's own reload before restarting it on the same state


class ReloadingServer:
    """The one server over `folder` (started by the first serve(), stopped by close()); `log` names its log files
    (`<log>.log`, `<log>-restarted.log`); `restarts` counts the restarts, whether asked for or instead of a reload."""

    def __init__(self, folder: RunFolder, log: str, port: int = 0, reload_wait: float = RELOAD_WAIT,
                 ctx: Context = QUIET) -> None:
        self.folder, self.log, self.port, self.reload_wait, self.ctx = folder, log, port, reload_wait, ctx
        self.server: DevServer | None = None
        self.last_server: DevServer | None = None  # the one close() stopped, for its leftovers()
        self.restarts = 0
        self._held = HeldServers()

    @property
    def index(self) -> Path:
        return self.folder.root / "src" / "index.js"

    def serve(self, source: str) -> DevServer:
        """Serve `source` as src/index.js: start the server with it, or swap it in (nothing to do if unchanged)."""
        if self.server is None:
            write_atomically(self.index, source)
            return self._start(f"{self.log}.log")
        if self.index.read_text() != source and not self.server.reload_with(self.index, source, self.reload_wait):
            self.restart()
        return self.server

    def restart(self, ctx: Context | None = None) -> DevServer:
        """Stop the server and start it again on the same state (the held server is stopped first); `ctx`: how this
        start is shown, if not as the others (a restart the grader injects from a thread shows nothing)."""
        self.restarts += 1
        return self._start(f"{self.log}-restarted.log", ctx)

    def _start(self, log_name: str, ctx: Context | None = None) -> DevServer:
        self.server = self._held.start("server", self.folder, port=self.port, log_name=log_name, ctx=ctx or self.ctx)
        return self.server

    def close(self) -> None:
        """Stop the server (proven gone); safe to call twice; a later serve() starts a new one."""
        self._held.stop_all()
        self.last_server, self.server = self.server or self.last_server, None

    def leftovers(self) -> dict[str, int | bool]:
        """What is left of the server serving now, else of the one close() stopped (nothing when none ran)."""
        server = self.server or self.last_server
        return server.leftovers() if server else dict(NOTHING_LEFT)
