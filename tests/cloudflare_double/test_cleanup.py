"""A run that failed after its deploy: found by the next run, named in the failing cell, removed by one command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reservation_lab.cloud import steps
from reservation_lab.cloud.cleanup import cleanup, cleanup_words, left_deployed, runs_left_deployed
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.i18n.catalog import template
from reservation_lab.paths import REPO_ROOT


def deployed_run(root: Path, double: CloudflareDouble) -> RunFolder:
    """A run that deployed, then stopped (no step 7 files written)."""
    run = create_run_folder(root)
    write_wrangler_config(run, double.account.id)
    steps.deploy(run)
    return run


def test_a_run_left_deployed_is_found_and_the_cleanup_command_removes_exactly_it(
        double: CloudflareDouble, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    left = deployed_run(runs / "labex-c10-o03-aaaaaaaaaaaa", double)
    other = deployed_run(runs / "labex-c10-o03-bbbbbbbbbbbb", double)
    assert runs_left_deployed(runs) == [left.root, other.root]
    assert not left.cleanup_config.exists()

    words = cleanup_words(left.root)
    assert words[-4:] == ["reservation_lab", "cleanup", "--workdir", str(left.root)]
    done = subprocess.run([sys.executable, *words[1:]], cwd=REPO_ROOT, env=os.environ.copy(), capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Deleted: WorkshopReservations" in done.stdout and "PASS: deleted" in done.stdout
    assert list(double.account.scripts) == [other.name]  # the other run's Worker is untouched
    assert [n.script for n in double.account.namespaces] == [other.name]
    assert runs_left_deployed(runs) == [other.root]
    cleanup(left.root)  # re-runnable: nothing left to delete, the verifier still proves it
    assert not left_deployed(left)


def test_a_failing_cell_after_a_deploy_names_the_cleanup(double: CloudflareDouble, tmp_path: Path) -> None:
    from reservation_lab.course.friendly import friendly_traceback
    from reservation_lab.errors import LabError

    run = deployed_run(tmp_path / "labex-c10-o03-cccccccccccc", double)
    failure = LabError("cloud.no_deploy_url", folder=run.logs_dir)
    shown = friendly_traceback(failure, "pt", run)  # the handler the session installed knows its run
    assert shown is not None and "python -m reservation_lab cleanup --workdir" in shown[-1]
    assert shown[-1].startswith(template("cloud.left_deployed", "pt").split("{run}")[0] + run.name)
    cleanup(run.root)
    assert len(friendly_traceback(failure, "pt", run) or []) == 2


def test_login_and_logout_say_that_an_api_token_in_the_environment_wins(
        double: CloudflareDouble, cloud_run: RunFolder, capsys: pytest.CaptureFixture[str]) -> None:
    steps.login(cloud_run)
    printed = capsys.readouterr().out
    assert "CLOUDFLARE_API_TOKEN is set" in printed and "`wrangler login` changes nothing" in printed
    assert steps.whoami(cloud_run).logged_in
    steps.logout(cloud_run)
    assert "`wrangler logout` changes nothing" in capsys.readouterr().out
    assert steps.whoami(cloud_run).logged_in  # the token still works: that is what the sentence warns about


def test_a_status_read_right_after_a_deploy_rides_out_edge_errors(double: CloudflareDouble,
                                                                  cloud_run: RunFolder) -> None:
    from reservation_lab.domain.client import LabClient
    from reservation_lab.errors import LabError

    url = steps.deploy(cloud_run).url
    steps.wait_until_ready(url, settle=0)
    double.user.faults.status_errors = 2
    with LabClient(url, retries=5, retry_delay=0.05) as client:
        assert client.status("after-redeploy")["capacity"] == 4
    double.user.faults.status_errors = 1
    with LabClient(url) as client, pytest.raises(LabError):
        client.status("after-redeploy")


def test_a_cloud_papermill_run_that_stopped_after_its_deploy_is_cleaned_up(double: CloudflareDouble,
                                                                           tmp_path: Path) -> None:
    """run_course(cloud=True)'s `finally`: what the stopped notebook deployed is deleted and proven deleted."""
    from reservation_lab.authoring.papermill_run import _clean_up_after

    run = deployed_run(tmp_path / "labex-c10-o03-dddddddddddd", double)
    _clean_up_after(run.root)
    assert double.account.scripts == {} and not left_deployed(run)
    _clean_up_after(run.root)  # nothing left: nothing to do
    _clean_up_after(tmp_path / "no-run-here")  # no config yet (stopped before step 1's config): nothing deployed
