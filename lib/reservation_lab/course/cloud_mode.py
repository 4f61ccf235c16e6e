"""Which Cloudflare steps 5-7 talk to: the learner's account (`cloud = True`) or, for a learner without one, a
local rehearsal (`cloud = "rehearsal"`) against the Cloudflare double on loopback; and the pause before step 7.

The rehearsal starts the double in this kernel, points wrangler and the helpers at it through the environment
(CLOUDFLARE_API_BASE_URL, the OAuth URLs, its CA, a HOME of its own, *.workers.dev via loopback) and marks every
command line a cloud cell shows. Nothing leaves the machine; the Worker, the bursts and SQLite are real workerd.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from reservation_lab.cloud.steps import REHEARSAL_ENV
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.errors import LabError
from reservation_lab.i18n import message
from reservation_lab.runtime.commands import mark_commands

REHEARSAL = "rehearsal"
_STATE: dict[str, Any] = {"mode": False, "double": None, "saved": {}}


def choose_cloud(cloud: bool | str) -> None:
    """Start the chosen cloud for steps 5-7 and say which it is (one line in the learner's language)."""
    if cloud not in (True, False, REHEARSAL):
        raise LabError("cloud.unknown_mode", value=repr(cloud), rehearsal=repr(REHEARSAL))
    stop_rehearsal()
    _STATE["mode"] = cloud
    if cloud == REHEARSAL:
        root = Path(tempfile.mkdtemp(prefix="cloudflare-double-"))
        double = CloudflareDouble(root)
        _STATE["double"] = double
        atexit.register(stop_rehearsal)
        environment = {**double.environment(with_token=False), REHEARSAL_ENV: "1"}
        _STATE["saved"] = {name: os.environ.get(name) for name in [*environment, "CLOUDFLARE_API_TOKEN"]}
        os.environ.pop("CLOUDFLARE_API_TOKEN", None)
        os.environ.update(environment)
        mark_commands(message("cloud.rehearsal_mark"))
        print(message("cloud.rehearsal_started", api=double.origin + "/client/v4"))
    elif cloud:
        print(message("cloud.real_cloud"))


def is_rehearsal() -> bool:
    return _STATE["mode"] == REHEARSAL


def before_cleanup(pause: bool) -> None:
    """Stop a Run All on a real account before step 7, so the learner inspects the dashboard first (step 6).

    `pause` is the notebook's `pause_before_cleanup` parameter (papermill and CI pass False); a rehearsal has no
    dashboard and never pauses.
    """
    if pause and _STATE["mode"] is True:
        raise LabError("cloud.paused_before_cleanup")


def stop_rehearsal() -> None:
    """Stop the double (its Workers too), restore the environment, drop its folder; safe to call twice."""
    double: CloudflareDouble | None = _STATE["double"]
    if double is None:
        return
    _STATE["double"] = None
    double.close()
    for name, value in _STATE["saved"].items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    mark_commands("")
    shutil.rmtree(double.root, ignore_errors=True)
