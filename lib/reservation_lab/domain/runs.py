"""Run folders: create one (`.runs/<run name>` or a given folder), open an existing one, or make a throwaway one
with a healthy dev server that is stopped and proven gone afterwards (its logs kept on failure).

A run folder holds everything one run writes: its wrangler configs (domain.config), a copy of the Worker source
and its node tests, the SQLite state and the logs.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Hashable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reservation_lab.domain.config import RUN_NAME, check_run_name, new_run_name, read_config, write_wrangler_config
from reservation_lab.errors import LabError
from reservation_lab.paths import RUNS_DIR, WORKER_DIR, WORKER_SRC
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.devserver import DevServer, start_dev_server
from reservation_lab.runtime.layout import RunLayout

WORKER_FILES = ("index.js", "front.js", "validation.js", "cleanup.js")
TEST_FILES = ("cloudflare-loader.mjs", "do-harness.mjs", "worker.test.mjs")


def _inside(relative: str, what: str) -> property:
    """A RunFolder path: `relative` under the run's root."""
    return property(lambda run: run.root / relative, doc=f"{what}: <run folder>/{relative}")


@dataclass(frozen=True)
class RunFolder:
    """Everything one run writes: config, Worker source copy, state, logs, responses."""

    root: Path
    name: str

    config = _inside("wrangler.jsonc", "the run's wrangler config")
    cleanup_config = _inside("wrangler.cleanup.jsonc", "the tombstone config of step 7")
    state_dir = _inside("local-state", "wrangler dev's SQLite state (--persist-to)")
    logs_dir = _inside("logs", "wrangler's and the dev servers' logs")


def create_run_folder(workdir: str | Path | None = None, name: str | None = None) -> RunFolder:
    """Create a run folder (default: .runs/<name> in the repo) with a copy of the Worker source."""
    root = Path(workdir).expanduser().resolve() if workdir else None
    if name is None and root is not None and RUN_NAME.fullmatch(root.name):
        name = root.name  # a folder named like a run keeps its name as the Worker name
    name = check_run_name(name or new_run_name())
    root = root or RUNS_DIR / name
    for folder in ("src", "test", "logs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for file in WORKER_FILES:
        shutil.copyfile(WORKER_SRC / file, root / "src" / file)
    for file in TEST_FILES:  # the node tests run against the run's copy (the learner's edit)
        shutil.copyfile(WORKER_DIR / "test" / file, root / "test" / file)
    shutil.copyfile(WORKER_DIR / "package.json", root / "package.json")  # ES modules, and `npm test`
    link_pinned_wrangler(root)
    return RunFolder(root=root, name=name)


def link_pinned_wrangler(root: Path) -> None:
    """root/node_modules -> worker/node_modules, so `npx wrangler` in the run folder finds the pinned wrangler
    (npx looks in the folder and its parents) and never downloads one."""
    link = root / "node_modules"
    if not link.exists() and not link.is_symlink():
        link.symlink_to(WORKER_DIR / "node_modules", target_is_directory=True)


def open_run(workdir: str | Path) -> RunFolder:
    """The RunFolder of an existing run folder (its wrangler.jsonc holds the run name)."""
    root = Path(workdir).expanduser().resolve()
    config = root / "wrangler.jsonc"
    if not config.exists():
        raise LabError("cloud.run_folder_no_config", path=config)
    return RunFolder(root=root, name=check_run_name(str(read_config(config).get("name"))))


@contextmanager
def serving(run: RunLayout, prove: bool = True, ctx: Context = QUIET, **start: Any) -> Iterator[DevServer]:
    """The one way a run folder gets a server: a healthy `wrangler dev` for `run` (`start` goes to
    start_dev_server: port, log_name, config, state_dir, progress, ...; `ctx` says how its command line and
    the error notes are shown), stopped when the block ends.

    When the block succeeded the server is also proven gone (no process of its group, no watchdog, the port free;
    DevServerError otherwise), unless `prove` is False (a drill that checks what is left itself). When starting or
    the block raised, the server is stopped and the error says where the logs are.
    Long-lived owners (the course session, the experiments' workbench) enter it into a contextlib.ExitStack.
    """
    try:
        server = start_dev_server(run, ctx=ctx, **start)
    except BaseException as error:
        error.add_note(ctx.say("lines.logs_kept", path=run.logs_dir))
        raise
    try:
        yield server
    except BaseException as error:
        error.add_note(ctx.say("lines.logs_kept", path=run.logs_dir))
        server.stop()
        raise
    if prove:
        server.stop_and_prove()
    else:
        server.stop()


class HeldServers:
    """Servers from `serving` kept running between calls (the course session's, the workbench's, the Cloudflare
    double's Workers), one per key; starting a key again first stops its old server; stop() and stop_all() leave
    each server stopped and proven gone."""

    def __init__(self) -> None:
        self._held: dict[Hashable, tuple[DevServer, ExitStack]] = {}

    def start(self, key: Hashable, run: RunLayout, **start: Any) -> DevServer:
        self.stop(key)
        held = ExitStack()
        server = held.enter_context(serving(run, **start))
        self._held[key] = (server, held)
        return server

    def get(self, key: Hashable) -> DevServer | None:
        entry = self._held.get(key)
        return entry[0] if entry else None

    def running(self) -> dict[Hashable, DevServer]:
        return {key: server for key, (server, _) in self._held.items()}

    def stop(self, key: Hashable) -> None:
        entry = self._held.pop(key, None)
        if entry is not None:
            entry[1].close()

    def stop_all(self) -> None:
        while self._held:
            self.stop(next(iter(self._held)))


@contextmanager
def temporary_server(prefix: str = "lab-", **start: Any) -> Iterator[DevServer]:
    """`serving` a fresh run folder in a temporary directory (its config written); the folder is removed when the
    block succeeded, kept (with its logs, named in the error) when it raised."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    run = create_run_folder(root / "run")
    write_wrangler_config(run)
    with serving(run, **start) as server:
        yield server
    shutil.rmtree(root, ignore_errors=True)
