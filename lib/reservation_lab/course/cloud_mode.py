"""Which Cloudflare steps 5-7 talk to: the learner's account (`cloud = True`) or, for a learner without one, a
local rehearsal (`cloud = "rehearsal"`) against the Cloudflare double on loopback; and the pause before step 7.

The rehearsal starts the double and points wrangler's cloud commands and the helpers at it through a cloud
environment of its own (runtime.cloud_env: CLOUDFLARE_API_BASE_URL, the OAuth URLs, its CA, a HOME of its own,
*.workers.dev via loopback; no credential, endpoint or keyring variable inherited from the kernel, whose own
environment is never changed), which the session's context carries with the mark every command line that reaches
it gets. The session owns it: a new setup cell (or the end of the kernel) stops it. Nothing leaves the machine;
the Worker, the bursts and SQLite are real workerd.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from reservation_lab.cloud.steps import REHEARSAL_ENV
from reservation_lab.course.session import current
from reservation_lab.errors import LabError, PausedOnPurpose
from reservation_lab.i18n import quoted
from reservation_lab.runtime.cloud_env import REAL, stand_in

REHEARSAL = "rehearsal"


class Rehearsal:
    """The double for this session and the cloud environment that points at it (the kernel's is never changed)."""

    def __init__(self) -> None:
        from reservation_lab.cloudflare_double.double import CloudflareDouble  # only a rehearsal loads the double

        self.double = CloudflareDouble(Path(tempfile.mkdtemp(prefix="cloudflare-double-")))
        self.environment = stand_in({**self.double.environment(with_token=False), REHEARSAL_ENV: "1"})
        atexit.register(self.stop)

    def stop(self) -> None:
        """Stop the double (its Workers too) and drop its folder; safe to call twice."""
        if self.double is None:
            return
        double, self.double = self.double, None
        double.close()
        shutil.rmtree(double.root, ignore_errors=True)


def choose_cloud(cloud: bool | str) -> None:
    """Start the chosen cloud for steps 5-7 and say which it is (one line in the learner's language)."""
    if cloud not in (True, False, REHEARSAL):
        raise LabError("cloud.unknown_mode", value=quoted(cloud), rehearsal=quoted(REHEARSAL))
    session = current()
    if session.rehearsal is not None:
        session.rehearsal.stop()
        session.rehearsal = None
    session.cloud = cloud
    session.context = session.context.with_(cloud=REAL, mark="")  # the learner's own environment
    if cloud == REHEARSAL:
        session.rehearsal = Rehearsal()
        session.context = session.context.with_(cloud=session.rehearsal.environment,
                                                mark=session.context.say("cloud.rehearsal_mark"))
        print(session.context.say("cloud.rehearsal_started", api=session.rehearsal.double.origin + "/client/v4"))
    elif cloud:
        print(session.context.say("cloud.real_cloud"))


def before_cleanup(pause: bool) -> None:
    """Stop a Run All on a real account before step 7, so the learner inspects the dashboard first (step 6).

    `pause` is the notebook's `pause_before_cleanup` parameter (papermill and CI pass False); a rehearsal has no
    dashboard and never pauses.
    """
    if pause and current().cloud is True:
        raise PausedOnPurpose("cloud.paused_before_cleanup")
