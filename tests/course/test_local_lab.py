"""`./lab local`: the course notebook on the local runtime only, with the same summary as `./lab run`."""

from __future__ import annotations

import json
import subprocess
import sys

from reservation_lab.paths import REPO_ROOT


def local(*args: str, cwd=None) -> dict:
    proc = subprocess.run([sys.executable, "-m", "reservation_lab", "local", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    summary = proc.stdout.split("Invariant summary (local, notebook de):", 1)[1]
    assert str(REPO_ROOT) not in summary.split("executed notebook:", 1)[0]
    return json.loads(summary.split("executed notebook:", 1)[0])


def test_local_command_prints_the_invariant_summary(tmp_path) -> None:
    """Also the control of tests/course/test_learner_edits.py: the unedited German notebook passes its checks."""
    report = local("--workdir", str(tmp_path / "run"), cwd=tmp_path)
    assert report["summary"] == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    assert report["status_after_burst"] == report["status_after_restart"] == {
        "capacity": 4, "reserved": 4, "acceptedRequests": 4, "rejectedRequests": 6, "acceptedSeats": 4}
    assert report["replayed"] is True
    assert report["final_status"]["rejectedRequests"] == 7 and report["final_status"]["acceptedSeats"] == 4
    assert (tmp_path / "run" / "logs" / "dev-restarted.log").exists()
    assert json.loads((tmp_path / "run" / "report.json").read_text())["cloud"] is False


def test_larger_burst_derives_its_expectations(tmp_path) -> None:
    report = local("--workdir", str(tmp_path / "run"), "--burst-size", "25", "--workshop", "big-day")
    assert report["summary"] == {"accepted": 4, "rejected": 21, "highestReserved": 4}
    assert report["final_status"]["rejectedRequests"] == 22
