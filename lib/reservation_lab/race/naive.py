"""The naive Worker (worker/src/naive.js): the race shown for real, on loopback only.

Its Durable Object `NaiveWorkshop` reads the counter, awaits a timer, then writes `reserved + seats`, so
concurrent requests interleave between read and write: more than 4 are accepted and updates get lost.
It exists to be contrasted with the correct Worker and is LOCAL ONLY: nothing in the lab deploys it.
Its config has no account ID, no workers.dev route and no preview URLs, its name (`<run name>-naive`)
is one `config.check_run_name` refuses, and its state lives apart in `naive-state/`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reservation_lab.domain.config import BINDING, CLASS_NAME, RunFolder, worker_template
from reservation_lab.paths import WORKER_SRC
from reservation_lab.runtime.devserver import DevServer, start_dev_server

NAIVE_CLASS = "NaiveWorkshop"
NAIVE_FILES = ("naive.js", "front.js", "validation.js")


def naive_config_path(run: RunFolder) -> Path:
    return run.root / "wrangler.naive.jsonc"


def naive_state_dir(run: RunFolder) -> Path:
    return run.root / "naive-state"


def naive_config(run: RunFolder) -> dict:
    """The naive Worker's wrangler config: served by `wrangler dev` only, never deployed.

    From worker/wrangler.jsonc it takes only the compatibility date, the binding name and the class's storage;
    its own name, entry point, class and the local-only settings (no workers.dev, no preview URLs) are fixed here.
    """
    template = worker_template()
    return {
        "name": f"{run.name}-naive",
        "main": "src/naive.js",
        "compatibility_date": template["compatibility_date"],
        "workers_dev": False,
        "preview_urls": False,
        "durable_objects": {"bindings": [{"name": BINDING, "class_name": NAIVE_CLASS}]},
        "exports": {NAIVE_CLASS: template["exports"][CLASS_NAME]},
    }


def write_naive_config(run: RunFolder) -> Path:
    """Copy the naive Worker into run/src/ and write run/wrangler.naive.jsonc (local only, never deployed)."""
    (run.root / "src").mkdir(parents=True, exist_ok=True)
    for file in NAIVE_FILES:
        shutil.copyfile(WORKER_SRC / file, run.root / "src" / file)
    path = naive_config_path(run)
    path.write_text(json.dumps(naive_config(run), indent=2) + "\n")
    return path


def start_naive_server(run: RunFolder, port: int = 0, timeout: float = 60.0) -> DevServer:
    """Start `wrangler dev` for the naive Worker on 127.0.0.1 with its own state (naive-state/) and log."""
    return start_dev_server(
        run,
        port=port,
        timeout=timeout,
        log_name="naive.log",
        config=write_naive_config(run),
        state_dir=naive_state_dir(run),
    )
