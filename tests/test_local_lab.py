"""The course's main local job end to end, as a learner runs it."""

from __future__ import annotations

import json
import subprocess
import sys

from reservation_lab.paths import REPO_ROOT


def test_local_command_prints_the_invariant_summary(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "reservation_lab", "local", "--workdir", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    report = json.loads(proc.stdout.split("Invariant summary (local):", 1)[1])
    assert report["summary"] == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    assert report["statusAfterBurst"] == report["statusAfterRestart"] == {
        "capacity": 4, "reserved": 4, "acceptedRequests": 4, "rejectedRequests": 6, "acceptedSeats": 4}
    assert report["replayed"] is True
    assert report["finalStatus"]["rejectedRequests"] == 7 and report["finalStatus"]["acceptedSeats"] == 4
    assert (tmp_path / "run" / "logs" / "dev-restarted.log").exists()
    assert str(REPO_ROOT) not in proc.stdout.split("Invariant summary", 1)[1]


def test_larger_burst_derives_its_expectations(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "reservation_lab", "local", "--workdir", str(tmp_path / "run"),
         "--burst-size", "25", "--workshop", "big-day"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    report = json.loads(proc.stdout.split("Invariant summary (local):", 1)[1])
    assert report["summary"] == {"accepted": 4, "rejected": 21, "highestReserved": 4}
    assert report["finalStatus"]["rejectedRequests"] == 22
