"""A throwaway run with a healthy dev server: made, served, stopped, proven gone; its logs kept on failure."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reservation_lab.domain.config import create_run_folder, write_wrangler_config
from reservation_lab.i18n import message
from reservation_lab.runtime.devserver import DevServer, start_dev_server


@contextmanager
def temporary_server(prefix: str = "lab-", **start: Any) -> Iterator[DevServer]:
    """A fresh run folder in a temporary directory, its config written, a healthy `wrangler dev` serving it.

    Afterwards the server is stopped and proven gone (DevServerError otherwise). The folder is removed when the
    block succeeded; when it raised, the folder stays and the error says where its logs are.
    `start` goes to start_dev_server (port, timeout, log_name, ...).
    """
    root = Path(tempfile.mkdtemp(prefix=prefix))
    run = create_run_folder(root / "run")
    write_wrangler_config(run)
    try:
        server = start_dev_server(run, **start)
    except BaseException as error:
        error.add_note(message("lines.logs_kept", path=run.logs_dir))
        raise
    try:
        yield server
    except BaseException as error:
        error.add_note(message("lines.logs_kept", path=run.logs_dir))
        server.stop()
        raise
    server.stop_and_prove()
    shutil.rmtree(root, ignore_errors=True)
