"""`./lab run` and `./lab local`: the course notebook through papermill, with the invariant summary on screen."""

from __future__ import annotations

import json

from reservation_lab.cli import _run, parser
from reservation_lab.paths import REPO_ROOT
from tests.conftest import GERMAN_BURST, CourseRun


def test_the_run_command_prints_the_invariant_summary(german_run: CourseRun) -> None:
    """Also the control of tests/course/test_learner_edits.py: the unedited German notebook passes its checks."""
    assert german_run.returncode == 0, german_run.stderr[-3000:] + german_run.stdout[-3000:]
    summary = german_run.stdout.split("Invariant summary (rehearsal, notebook de):", 1)[1]
    assert str(REPO_ROOT) not in summary.split("executed notebook:", 1)[0]
    report = json.loads(summary.split("executed notebook:", 1)[0])
    rejected = GERMAN_BURST - 4
    assert report["summary"] == {"accepted": 4, "rejected": rejected, "highestReserved": 4}
    assert report["status_after_burst"] == report["status_after_restart"] == {
        "capacity": 4, "reserved": 4, "acceptedRequests": 4, "rejectedRequests": rejected, "acceptedSeats": 4}
    assert report["replayed"] is True
    assert report["final_status"]["rejectedRequests"] == rejected + 1 and report["final_status"]["acceptedSeats"] == 4
    assert (german_run.root / "logs" / "dev-restarted.log").exists()
    assert german_run.report["cloud"] == "rehearsal"


def test_local_is_run_without_the_cloud_steps() -> None:
    """`local` takes the run options and nothing that reaches for the cloud; it runs the same function as `run`."""
    local = parser().parse_args(["local", "--language", "pt", "--burst-size", "12", "--no-experiments"])
    assert local.func is _run and (local.language, local.burst_size, local.experiments) == ("pt", 12, False)
    assert not any(hasattr(local, option) for option in ("cloud", "cloud_rehearsal", "account_name"))
