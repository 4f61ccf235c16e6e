"""The experiments' workbench: one reloading `wrangler dev` (domain.reloading) that serves each variant of the
learner's `src/index.js`.

A variant is the run's own index.js with a few exact text replacements (`apply_edits`); swapping it in makes
wrangler dev reload (about 0.7 s here), or restarts the server on the same state when its file watcher misses the
change. The workbench lives in `<run>/experiments/` with its own SQLite state.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping

from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.edits import apply_edits
from reservation_lab.domain.reloading import RELOAD_WAIT, ReloadingServer
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.devserver import DevServer


class Workbench:
    """The experiments' workbench: their own run folder and one reloading dev server (started on first use,
    stopped by close())."""

    def __init__(self, run: RunFolder, port: int = 0, reload_wait: float = RELOAD_WAIT, ctx: Context = QUIET) -> None:
        self.run = run
        self.folder = create_run_folder(run.root / "experiments", name=run.name)
        write_wrangler_config(self.folder)
        self.reloading = ReloadingServer(self.folder, "experiments", port=port, reload_wait=reload_wait, ctx=ctx)

    @property
    def server(self) -> DevServer | None:
        """The server serving now (None before the first experiment and after close())."""
        return self.reloading.server

    def leftovers(self) -> dict[str, int | bool]:
        """What is left of its server (after close(): of the one it stopped)."""
        return self.reloading.leftovers()

    @property
    def restarts(self) -> int:
        """How often the server was restarted (asked for, or because wrangler dev missed a change)."""
        return self.reloading.restarts

    def learners_files(self) -> str:
        """Copy the run's Worker files (as the cells wrote them, with the learner's edits); return its index.js."""
        for source in (self.run.root / "src").glob("*.js"):
            if source.name != "index.js":
                shutil.copyfile(source, self.folder.root / "src" / source.name)
        return (self.run.root / "src" / "index.js").read_text()

    def serve(self, edits: Mapping[str, str]) -> DevServer:
        """Serve the learner's index.js with `edits` applied (none: as shipped)."""
        return self.reloading.serve(apply_edits(self.learners_files(), edits))

    def restart(self) -> DevServer:
        """Stop the experiments' server and start it again on the same state (the constructor runs again)."""
        return self.reloading.restart()

    def close(self) -> None:
        """Stop the server (proven gone); safe to call twice."""
        self.reloading.close()
