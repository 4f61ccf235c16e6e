"""The experiments' workbench: one `wrangler dev` that serves each variant of the learner's `src/index.js`.

A variant is the run's own index.js with a few exact text replacements (`apply_edits`); writing it atomically
makes wrangler dev reload (about 0.7 s here), and if its file watcher misses the change within RELOAD_WAIT, the
server is restarted on the same state. The workbench lives in `<run>/experiments/` with its own SQLite state.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping

from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.edits import apply_edits
from reservation_lab.domain.runs import HeldServers, RunFolder, create_run_folder
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.devserver import DevServer, write_atomically

RELOAD_WAIT = 10.0  # seconds to wait for wrangler dev's own reload before restarting it on the same state


class Workbench:
    """The experiments' workbench: their own run folder and one reloading dev server (started on first use,
    stopped by close())."""

    def __init__(self, run: RunFolder, port: int = 0, reload_wait: float = RELOAD_WAIT, ctx: Context = QUIET) -> None:
        self.run = run
        self.ctx = ctx  # how its server's command line is shown
        self.port = port
        self.reload_wait = reload_wait
        self.restarts = 0  # how often wrangler dev missed a change and was restarted instead
        self.folder = create_run_folder(run.root / "experiments", name=run.name)
        write_wrangler_config(self.folder)
        self.server: DevServer | None = None
        self._held = HeldServers()  # the one server, held open until restart or close

    def learners_files(self) -> str:
        """Copy the run's Worker files (as the cells wrote them, with the learner's edits); return its index.js."""
        for source in (self.run.root / "src").glob("*.js"):
            if source.name != "index.js":
                shutil.copyfile(source, self.folder.root / "src" / source.name)
        return (self.run.root / "src" / "index.js").read_text()

    def serve(self, edits: Mapping[str, str]) -> DevServer:
        """Serve the learner's index.js with `edits` applied (none: as shipped).

        A changed file is written atomically (a build never sees half of it) and wrangler dev reloads it; if no
        reload is reported within `reload_wait` seconds (its file watcher polls and can miss or lag a change on
        a busy machine), the server is restarted on the same state, which serves the file as it is now.
        """
        index = self.folder.root / "src" / "index.js"
        variant = apply_edits(self.learners_files(), edits)
        if self.server is None:
            write_atomically(index, variant)
            self.server = self._serve("experiments.log")
        elif index.read_text() != variant and not self.server.reload_with(index, variant, self.reload_wait):
            self.restarts += 1
            self.restart()
        return self.server

    def restart(self) -> DevServer:
        """Stop the experiments' server and start it again on the same state (the constructor runs again)."""
        self.server = self._serve("experiments-restarted.log")  # the held server is stopped first
        return self.server

    def _serve(self, log_name: str) -> DevServer:
        return self._held.start("workbench", self.folder, port=self.port, log_name=log_name, ctx=self.ctx)

    def close(self) -> None:
        """Stop the server (proven gone); safe to call twice."""
        self._held.stop_all()
