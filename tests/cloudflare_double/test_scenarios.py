"""What a real account can do to a learner, played by the double against the real wrangler and the helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from reservation_lab.cloud import steps
from reservation_lab.cloud.cleanup import cleanup, left_deployed
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.course.friendly import friendly_traceback
from reservation_lab.course.parameters import DEFAULTS
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.errors import LabError, WranglerError
from reservation_lab.i18n import REFERENCE, message, set_language
from tests.cloudflare_double.test_lab_on_the_double import files_containing
from tests.support import raises_key


@pytest.mark.parametrize("agent", [None, "REPL_ID", "CODEIUM_EDITOR_APP_ROOT"])
def test_an_account_without_workers_dev_subdomain_is_told_what_to_do(
        double: CloudflareDouble, cloud_run: RunFolder, monkeypatch: pytest.MonkeyPatch, agent: str | None) -> None:
    """The same sentence in an online IDE or agent-driven editor (Replit, Windsurf): wrangler never learns it runs
    there, so it never registers an account-wide subdomain on its own."""
    if agent:
        monkeypatch.setenv(agent, "1")
    double.account.subdomain = None
    with pytest.raises(LabError) as raised:
        steps.deploy(cloud_run)
    assert raised.value.message.key == "cloud.no_subdomain"
    assert "Workers & Pages" in raised.value.localized("de") and "npx wrangler deploy" in raised.value.localized("de")
    assert "<hidden" not in str(raised.value) and "onboarding" not in str(raised.value)  # no dead link
    assert double.account.scripts == {} and double.account.namespaces == []  # nothing uploaded
    assert not any(method == "PUT" for method, _ in double.requests)  # nor a subdomain registered
    assert not left_deployed(cloud_run)  # and no cleanup hint for a run that uploaded nothing


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
    """workers.dev answers an HTML 404 for 2 s after the deploy (DNS, propagation); readiness polls through it."""
    import time

    from reservation_lab.domain.client import LabClient

    double.user.faults.route_delay = 2.0
    url = steps.deploy(cloud_run).url
    with LabClient(url) as client, pytest.raises(LabError) as raised:
        client.status("early")
    assert raised.value.message.key == "errors.not_json_answer"
    assert "HTTP 404" in str(raised.value) and "text/html" in str(raised.value)
    with pytest.raises(LabError) as timed_out:
        steps.wait_until_ready(url, timeout=0.5, settle=0)
    assert "running this cell again is safe" in str(timed_out.value)
    started = time.monotonic()
    steps.wait_until_ready(url, timeout=30, settle=0, interval=0.2)
    assert 0.5 < time.monotonic() - started < 10


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


# --- real accounts (cloudflare_double.scenarios) -------------------------------------------------------------------

def test_a_fresh_free_account_passes_step_1_with_the_notebooks_defaults_and_shows_no_email(
        oauth_double: CloudflareDouble, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = create_run_folder(tmp_path / "run")
    steps.login(run)
    identity = steps.whoami(run)
    assert identity.names() == [f"{oauth_double.user.email}'s Account"]
    assert steps.choose_account(identity, DEFAULTS["account_name"]) == oauth_double.account.id
    assert identity.public()["accounts"] == [{"name": "<your e-mail>'s Account"}]
    printed = capsys.readouterr().out
    assert "<your e-mail>'s Account" in printed and "the lab uses it" in printed
    assert oauth_double.user.email not in printed and oauth_double.account.id not in printed
    assert files_containing(run.root, oauth_double.user.email) == []
    assert files_containing(run.root, oauth_double.account.id) == []


@pytest.mark.parametrize("double", ["several-accounts"], indirect=True)
def test_the_seeds_learning_account_among_several_is_chosen_by_name(double: CloudflareDouble, cloud_run: RunFolder,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    identity = steps.whoami(cloud_run)
    assert identity.names() == ["LabEx Learning", f"{double.user.email}'s Account"]
    assert steps.choose_account(identity, "LabEx Learning") == double.account.id
    assert "The lab uses the account \"LabEx Learning\"." in capsys.readouterr().out
    for language, placeholder in (("de", "<Ihre E-Mail-Adresse>"), ("pt", "<seu e-mail>"), ("es", "<su correo")):
        set_language(language)  # as the notebook's session does: the error is made and shown in its language
        try:
            with raises_key("cloud.no_account") as raised:
                steps.choose_account(identity, "Labex learning")
        finally:
            set_language(REFERENCE)
        text = raised.value.localized(language)
        assert "account_name" in text and "npx wrangler logout" in text and double.user.email not in text
        assert f'{placeholder}' in text and "LabEx Learning" in text


@pytest.mark.parametrize("oauth_double", ["grant-without-learning-account"], indirect=True)
def test_a_login_that_left_the_learning_account_out_is_told_to_log_in_again_and_tick_it(
        oauth_double: CloudflareDouble, tmp_path: Path) -> None:
    run = create_run_folder(tmp_path / "run")
    steps.login(run)
    identity = steps.whoami(run)
    assert "LabEx Learning" not in identity.names() and len(identity.names()) == 2  # wrangler cannot see it
    with raises_key("cloud.no_account") as raised:
        steps.choose_account(identity, DEFAULTS["account_name"])
    assert "consent page" in str(raised.value) and "npx wrangler logout" in str(raised.value)
    assert "Zustimmungsseite" in raised.value.localized("de") and oauth_double.user.email not in str(raised.value)
    from reservation_lab.cloud.api import CloudflareAPI

    with CloudflareAPI(steps.api_token(run), oauth_double.account.id) as api, raises_key("cloud.api_refused"):
        api.durable_object_namespaces()  # the API refuses the ungranted account too (9109)


@pytest.mark.parametrize("double", ["unverified-email"], indirect=True)
def test_an_unverified_email_is_told_to_verify_and_nothing_is_uploaded(double: CloudflareDouble,
                                                                       cloud_run: RunFolder) -> None:
    with raises_key("cloud.email_unverified") as raised:
        steps.deploy(cloud_run)
    assert "10034" in str(raised.value) and "Bestätigungslink" in raised.value.localized("de")
    assert double.account.scripts == {} and double.account.namespaces == []
    assert not left_deployed(cloud_run)
    shown = "\n".join(friendly_traceback(raised.value, "pt", cloud_run) or [])
    assert "10034" in shown and "cleanup" not in shown  # no cleanup hint: nothing was uploaded
    ndjson = "".join(p.read_text() for p in cloud_run.logs_dir.glob("deploy-*.ndjson"))
    assert '"command-failed"' in ndjson and double.account.id not in ndjson  # kept, with the account ID hidden


def test_the_left_deployed_tracker_follows_what_was_uploaded(double: CloudflareDouble, cloud_run: RunFolder) -> None:
    """A deploy stopped before uploading leaves no hint; cleanup -> deploy -> failure names the run again."""
    double.account.subdomain = None
    with raises_key("cloud.no_subdomain"):
        steps.deploy(cloud_run)
    assert not left_deployed(cloud_run)
    double.account.subdomain = "lab-learner"
    steps.deploy(cloud_run)
    assert left_deployed(cloud_run)
    cleanup(cloud_run.root)
    assert not left_deployed(cloud_run)
    steps.deploy(cloud_run)  # the same run deploys again after a proven cleanup: it may be left behind again
    assert left_deployed(cloud_run)
    cleanup(cloud_run.root)
    assert double.account.scripts == {}


def test_settings_without_namespace_id_are_joined_by_class_and_still_pass(
        double: CloudflareDouble, cloud_run: RunFolder, capsys: pytest.CaptureFixture[str]) -> None:
    double.user.faults.settings_without_namespace_id = True
    url = steps.deploy(cloud_run).url
    steps.wait_until_ready(url, settle=0)
    steps.verify(cloud_run, "deployed", app_url=url, burst_size=0)
    printed = capsys.readouterr().out
    assert "lists no namespace_id, so the namespace was matched by this Worker and class" in printed
    assert "PASS: deployed" in printed


def test_an_edited_worker_without_the_class_is_refused_by_cloudflare_in_the_learners_language(
        double: CloudflareDouble, cloud_run: RunFolder) -> None:
    source = cloud_run.root / "src" / "index.js"
    source.write_text(source.read_text().replace("WorkshopReservations", "Reservations"))
    with raises_key("cloud.class_not_exported") as raised:  # wrangler's own check, before any upload
        steps.deploy(cloud_run)
    assert "src/index.js" in raised.value.localized("es") and "no se subió nada" in raised.value.localized("es")
    assert double.account.scripts == {} and double.account.namespaces == [] and not left_deployed(cloud_run)
    assert not any(method == "PUT" for method, _ in double.requests)


def test_a_tombstone_whose_worker_still_exports_the_class_deletes_nothing(
        double: CloudflareDouble, cloud_run: RunFolder) -> None:
    steps.deploy(cloud_run)
    cleanup_source = cloud_run.root / "src" / "cleanup.js"
    cleanup_source.write_text(cleanup_source.read_text() + "\nexport class WorkshopReservations {}\n")
    with raises_key("cloud.exports_rejected") as raised:
        steps.deploy(cloud_run, cleanup=True)
    assert "[tombstone_delete_class_still_in_code] WorkshopReservations" in str(raised.value)
    assert [n.class_name for n in double.account.namespaces] == ["WorkshopReservations"]  # still there


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
    assert steps.whoami(run).logged_in  # wrangler refreshed it
    second = steps.api_token(run)
    assert second != first and oauth_double.user.authorized(second) and oauth_double.oauth.refreshed >= 1
    assert first_refresh in oauth_double.oauth.revoked_refresh  # spent: a replay of it is refused
    steps.logout(run)
    assert not oauth_double.user.authorized(second)


def test_a_worker_that_throws_at_startup_is_an_api_answer_not_a_dropped_request(
        double: CloudflareDouble, cloud_run: RunFolder) -> None:
    """The double's workerd cannot start the upload: Cloudflare's validation error (10021), the account unchanged."""
    source = cloud_run.root / "src" / "index.js"
    source.write_text(source.read_text() + '\nthrow new Error("broken at startup");\n')
    with pytest.raises(WranglerError) as raised:
        steps.deploy(cloud_run)
    assert "10021" in str(raised.value) and "fetch failed" not in str(raised.value)
    assert double.account.scripts == {} and double.account.namespaces == []
    assert left_deployed(cloud_run)  # an unknown failure may have uploaded: the cleanup hint stays (conservative)
