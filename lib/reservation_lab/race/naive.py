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
from contextlib import AbstractContextManager
from pathlib import Path

from reservation_lab.domain.config import BINDING, CLASS_NAME, worker_template
from reservation_lab.domain.runs import RunFolder, serving
from reservation_lab.paths import WORKER_SRC
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.devserver import DevServer

NAIVE_CLASS = "NaiveWorkshop"
NAIVE_SOURCE = "naive.js"  # it imports the run's own front.js and validation.js (the learner's, if edited)


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
    """Copy naive.js into run/src/ and write run/wrangler.naive.jsonc (local only, never deployed).

    The run's front.js and validation.js, which create_run_folder copied and the learner may have edited,
    are left as they are."""
    shutil.copyfile(WORKER_SRC / NAIVE_SOURCE, run.root / "src" / NAIVE_SOURCE)
    path = naive_config_path(run)
    path.write_text(json.dumps(naive_config(run), indent=2) + "\n")
    return path


def naive_server(run: RunFolder, ctx: Context = QUIET) -> AbstractContextManager[DevServer]:
    """domain.runs.serving for the naive Worker: its own config, state (naive-state/) and log, a free port."""
    return serving(run, log_name="naive.log", config=write_naive_config(run), state_dir=naive_state_dir(run), ctx=ctx)
