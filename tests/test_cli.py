"""`./lab local`: the course notebook on the local runtime only, with the same summary as `./lab run`."""

from __future__ import annotations

import json

from reservation_lab.paths import REPO_ROOT
from tests.conftest import CourseRun


def test_local_command_prints_the_invariant_summary(german_run: CourseRun) -> None:
    """Also the control of tests/course/test_learner_edits.py: the unedited German notebook passes its checks.
    (A larger burst's derived expectations: tests/authoring/test_papermill_run.py's three-languages run, burst 25.)"""
    assert german_run.returncode == 0, german_run.stderr[-3000:] + german_run.stdout[-3000:]
    summary = german_run.stdout.split("Invariant summary (local, notebook de):", 1)[1]
    assert str(REPO_ROOT) not in summary.split("executed notebook:", 1)[0]
    report = json.loads(summary.split("executed notebook:", 1)[0])
    assert report["summary"] == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    assert report["status_after_burst"] == report["status_after_restart"] == {
        "capacity": 4, "reserved": 4, "acceptedRequests": 4, "rejectedRequests": 6, "acceptedSeats": 4}
    assert report["replayed"] is True
    assert report["final_status"]["rejectedRequests"] == 7 and report["final_status"]["acceptedSeats"] == 4
    assert (german_run.root / "logs" / "dev-restarted.log").exists()
    assert german_run.report["cloud"] is False
