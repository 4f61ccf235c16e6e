"""The crash drill for real: SIGKILL a `wrangler dev` group mid-burst, restart on the same state, lose nothing."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

import pytest

from reservation_lab.drills import crash
from reservation_lab.drills.crash import CrashReport, add_arguments, run_crash_drill
from reservation_lab.errors import LabError
from reservation_lab.runtime.processes import group_members
from tests.support import lab_processes, raises_key


def _pgid(line: str) -> int | None:
    try:
        return os.getpgid(int(line.split(":", 1)[0]))
    except (OSError, ValueError):
        return None


@pytest.mark.parametrize("trials", [2, pytest.param(5, marks=pytest.mark.stress)])
def test_crash_drill_loses_no_acknowledged_reservation(tmp_path: Path, trials: int) -> None:
    """Two trials in `./lab test` (each kills a server mid-burst at a seeded point), five under `-m stress`."""
    report = run_crash_drill(trials=trials, burst=60, seed=20260918, workdir=tmp_path)

    assert isinstance(report, CrashReport)
    assert report.ok, [t.problems for t in report.trials]
    assert report.kills == len(report.trials) == trials
    assert report.acknowledged_lost == 0
    assert report.held == trials
    assert report.summary_line() == (f"crash drill: {trials} trials, {trials} kills, 0 acknowledged reservations "
                                     f"lost, invariant held in {trials}/{trials}")
    for t in report.trials:
        assert t.killed_exit_code == -9, "the server must have died of SIGKILL, not been stopped"
        assert t.in_flight_at_kill > 0 and 1 <= t.kill_after_answers < 60
        assert t.accepted_before + t.rejected_before + t.undecided == 60
        assert t.stored_at_crash >= t.accepted_before + t.rejected_before
        assert t.decided_on_replay + t.decided_after_restart == t.undecided
        assert len(t.replay_answers) == t.accepted_before + t.undecided
        assert all(d.body["replayed"] for d in t.replay_answers if d.request_id in
                   {a.request_id for a in t.first_answers if a.status_code == 201})
        assert t.status_after["reserved"] == t.status_after["acceptedSeats"] == 4
        assert t.status_after["acceptedRequests"] + t.status_after["rejectedRequests"] == 60

    # Each trial had its own run folder and state, and both servers' logs.
    roots = {t.run_root for t in report.trials}
    states = {t.state_dir for t in report.trials}
    assert len(roots) == len(states) == trials
    for t in report.trials:
        assert t.run_root.parent == tmp_path.resolve()
        assert t.state_dir.is_dir() and any(t.state_dir.rglob("*.sqlite"))
        assert (t.run_root / "logs" / "dev-before-crash.log").exists()
        assert (t.run_root / "logs" / "dev-after-crash.log").exists()

    # Nothing of the drill is left running (other runs on the machine are not this test's business).
    pgids = {pgid for t in report.trials for pgid in t.server_pgids}
    watchdogs = {pid for t in report.trials for pid in t.watchdog_pids}
    assert len(pgids) == 2 * len(report.trials) and all(group_members(pgid) == [] for pgid in pgids)
    left = [line for line in lab_processes() if _pgid(line) in pgids | watchdogs]
    assert left == []


def test_add_arguments_parses_the_options() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert (args.trials, args.burst, args.seed, args.workdir) == (5, 200, None, None)
    assert args.func is crash.main
    args = parser.parse_args(["--trials", "3", "--burst", "40", "--seed", "7", "--workdir", "/tmp/x"])
    assert (args.trials, args.burst, args.seed, args.workdir) == (3, 40, 7, "/tmp/x")
    for bad in (["--trials", "0"], ["--burst", "1"], ["--burst", "many"], ["--trials", str(crash.MAX_TRIALS + 1)]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


def test_bounds_used_workdir_and_running_loop_are_refused(tmp_path: Path) -> None:
    with raises_key("drills.out_of_range", LabError, what="--trials", value=0):
        run_crash_drill(trials=0)
    with raises_key("drills.out_of_range", LabError, what="--burst", value=crash.MAX_BURST + 1):
        run_crash_drill(burst=crash.MAX_BURST + 1)

    (tmp_path / "trial-2").mkdir()
    with raises_key("drills.workdir_used", LabError, used="trial-2"):
        run_crash_drill(trials=2, burst=10, workdir=tmp_path)

    async def inside_a_loop() -> None:
        run_crash_drill(trials=1, burst=10)

    with raises_key("errors.loop_running", LabError, hint="run_crash_drill_async"):
        asyncio.run(inside_a_loop())


def test_main_prints_the_table_and_fails_on_a_broken_trial(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def trial(number: int, problems: list[str]) -> crash.TrialResult:
        return crash.TrialResult(number, tmp_path / f"trial-{number}", tmp_path / f"trial-{number}" / "local-state",
                                 60, 5, killed=True, kill_at_ms=12.0, answered_at_kill=5, in_flight_at_kill=55,
                                 accepted_before=4, rejected_before=40, undecided=16, stored_at_crash=50,
                                 accepted_stored_at_crash=4, decided_on_replay=6, decided_after_restart=10,
                                 problems=problems)

    outcomes = {"good": [trial(1, []), trial(2, [])], "bad": [trial(1, []), trial(2, ["reserved=5 > capacity"])]}
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    for name, expected_code, line in (("good", 0, "invariant held in 2/2"), ("bad", 1, "invariant held in 1/2")):
        monkeypatch.setattr(crash, "run_crash_drill", lambda *a, name=name, **k: CrashReport(
            60, 1, tmp_path, outcomes[name]))
        args = parser.parse_args(["--trials", "2", "--burst", "60", "--workdir", str(tmp_path)])
        assert args.func(args) == expected_code
        out = capsys.readouterr().out
        assert "stored@crash" in out and "replay-only" in out
        last = out.strip().splitlines()[-1]
        assert last == f"crash drill: 2 trials, 2 kills, 0 acknowledged reservations lost, {line}"
