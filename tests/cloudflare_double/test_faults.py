"""What a real account's edge and API can do to a learner (the faults of cloudflare_double.state: a slow route, answers
lost after the commit, 429s, revoked and expiring tokens, settings without namespace_id), played against the real
wrangler and the helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from reservation_lab.cloud import steps
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.errors import LabError, WranglerError
from reservation_lab.i18n import message


def test_the_cleanup_deploy_run_twice_says_the_namespace_is_already_gone(
        double: CloudflareDouble, cloud_run: RunFolder, capsys: pytest.CaptureFixture[str]) -> None:
    steps.deploy(cloud_run)
    steps.deploy(cloud_run, cleanup=True)
    assert "Deleted: WorkshopReservations" in capsys.readouterr().out
    steps.deploy(cloud_run, cleanup=True)  # Cloudflare: [stale_tombstone], no Deleted: line
    printed = capsys.readouterr().out
    assert "[stale_tombstone] WorkshopReservations" in printed and "Deleted:" not in printed
    assert message("cloud.already_deleted", class_name="WorkshopReservations") in printed
    steps.delete_worker(cloud_run)
    assert double.account.scripts == {}


def test_delete_without_a_tombstone_first_deletes_nothing(double: CloudflareDouble, cloud_run: RunFolder,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """No --force: a Worker whose namespace still exists is not deleted (with --force both would vanish)."""
    steps.deploy(cloud_run)
    with pytest.raises(WranglerError):
        steps.delete_worker(cloud_run)
    assert f"Are you sure you want to delete {cloud_run.name}? " in capsys.readouterr().out
    assert list(double.account.scripts) == [cloud_run.name]
    assert [n.class_name for n in double.account.namespaces] == ["WorkshopReservations"]
    assert ("DELETE", f"/accounts/{double.account.id}/workers/services/{cloud_run.name}") in double.requests


def test_an_answer_lost_after_the_commit_is_retried_and_its_replay_is_no_broken_invariant(
        double: CloudflareDouble, cloud_run: RunFolder) -> None:
    """Two reservations commit on the Worker but come back as an HTML 502; the retry replays them."""
    from reservation_lab.domain.burst import send_burst_sync
    from reservation_lab.domain.checker import check_history
    from reservation_lab.domain.client import LabClient
    from reservation_lab.domain.invariants import check_burst, expected_summary

    url = steps.deploy(cloud_run).url
    steps.wait_until_ready(url, settle=0)
    double.user.faults.error_after_commit = 2
    with LabClient(url) as client:
        before = client.status("lossy")
        decisions = send_burst_sync(url, "lossy", 10)
        after = client.status("lossy")
    retried = [d for d in decisions if len(d.attempts) > 1]
    assert len(retried) == 2
    assert all([a.status_code for a in d.attempts][0] == 502 and d.decided and len(d.attempts) == 2 for d in retried)
    assert all(d.replayed for d in retried) and not any(d.replayed for d in decisions if d not in retried)
    assert check_burst(decisions, before, after) == expected_summary(10)
    assert check_history(decisions, before, after).ok


def test_readiness_waits_for_a_slow_route_and_a_page_without_json_is_a_sentence(
        double: CloudflareDouble, cloud_run: RunFolder) -> None:
    """workers.dev answers an HTML 404 for a while after the deploy (DNS, propagation); readiness polls through it.
    The route goes live when the test says (not a fixed delay after the deploy: on a loaded machine the deploy's
    own output took longer than 2 s once, and the first request already found the route live)."""
    import time

    from reservation_lab.domain.client import LabClient

    double.user.faults.route_delay = 3600.0
    url = steps.deploy(cloud_run).url
    with LabClient(url) as client, pytest.raises(LabError) as raised:
        client.status("early")
    assert raised.value.message.key == "errors.not_json_answer"
    assert "HTTP 404" in str(raised.value) and "text/html" in str(raised.value)
    with pytest.raises(LabError) as timed_out:
        steps.wait_until_ready(url, timeout=0.5, settle=0)
    assert "running this cell again is safe" in str(timed_out.value)
    started = time.monotonic()
    double.account.scripts[cloud_run.name].live_from = started + 1.0  # live in a second
    steps.wait_until_ready(url, timeout=30, settle=0, interval=0.2)
    assert 1.0 <= time.monotonic() - started < 10


def test_the_verifier_waits_out_a_429_and_says_log_in_again_for_a_revoked_token(
        double: CloudflareDouble, cloud_run: RunFolder) -> None:
    from reservation_lab.cloud.api import CloudflareAPI

    steps.deploy(cloud_run)
    double.user.faults.rate_limited, double.user.faults.retry_after = 1, 1
    with CloudflareAPI(double.token, double.account.id) as api:
        before = len(double.requests)
        assert [b["name"] for b in api.script_settings(cloud_run.name)["bindings"]] == ["WORKSHOPS"]
        assert len(double.requests) - before == 2  # the 429, then the answer after Retry-After
    double.user.revoked.add(double.token)
    with CloudflareAPI(double.token, double.account.id) as api, pytest.raises(LabError) as raised:
        api.script_settings(cloud_run.name)
    assert raised.value.message.key == "cloud.api_refused" and "run the login cell again" in str(raised.value)
    assert double.token not in str(raised.value) and double.account.id not in str(raised.value)


def test_an_access_token_that_expires_mid_lab_is_refreshed_and_the_refresh_token_rotates(
        oauth_double: CloudflareDouble, tmp_path: Path) -> None:
    import time

    oauth_double.oauth.lifetime = 2.0
    run = create_run_folder(tmp_path / "run")
    steps.login(run)
    first = steps.api_token(run)
    first_refresh = next(r for r, access in oauth_double.oauth.refresh.items() if access == first)
    time.sleep(2.5)
    assert not oauth_double.user.authorized(first)  # expired on the server too
    oauth_double.oauth.lifetime = 3600.0  # the refreshed token outlives the rest of the test on a loaded machine
    assert steps.whoami(run).logged_in  # wrangler refreshed it
    second = steps.api_token(run)
    assert second != first and oauth_double.user.authorized(second) and oauth_double.oauth.refreshed >= 1
    assert first_refresh in oauth_double.oauth.revoked_refresh  # spent: a replay of it is refused
    steps.logout(run)
    assert not oauth_double.user.authorized(second)
