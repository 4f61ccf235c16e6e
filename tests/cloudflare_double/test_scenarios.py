"""cloudflare_double.scenarios: the learners the double plays (a fresh free account, several accounts, a grant
without the learning account, an unverified e-mail, no subdomain), against the real wrangler and the helpers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from reservation_lab.cloud import steps
from reservation_lab.cloud.accounts import choose_account
from reservation_lab.cloud.cleanup import cleanup, left_deployed
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.course.friendly import friendly_traceback
from reservation_lab.course.parameters import DEFAULTS
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.errors import LabError
from tests.cloudflare_double.test_lab_on_the_double import files_containing
from tests.support import raises_key


@pytest.mark.parametrize("agent", [None, "REPL_ID"])  # every agent variable: tests/runtime/test_wrangler.py
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


def test_a_fresh_free_account_passes_step_1_with_the_notebooks_defaults_and_shows_no_email(
        oauth_double: CloudflareDouble, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = create_run_folder(tmp_path / "run")
    steps.login(run)
    identity = steps.whoami(run)
    assert identity.names() == [f"{oauth_double.user.email}'s Account"]
    assert choose_account(identity, DEFAULTS["account_name"]) == oauth_double.account.id
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
    assert choose_account(identity, "LabEx Learning") == double.account.id
    assert "The lab uses the account \"LabEx Learning\"." in capsys.readouterr().out
    for language, placeholder in (("de", "<Ihre E-Mail-Adresse>"), ("pt", "<seu e-mail>"), ("es", "<su correo")):
        # as a session in that language makes it: the identity, and the error it raises, in the session's language
        with raises_key("cloud.no_account") as raised:
            choose_account(replace(identity, language=language), "Labex learning")
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
        choose_account(identity, DEFAULTS["account_name"])
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
    double.account.subdomain = None  # a first deploy of the cleaned run that stops before uploading: still clean
    with raises_key("cloud.no_subdomain"):
        steps.deploy(cloud_run)
    assert not left_deployed(cloud_run)
    double.account.subdomain = "lab-learner"
    steps.deploy(cloud_run)  # the same run deploys again after a proven cleanup: it may be left behind again
    assert left_deployed(cloud_run)
    failed = LabError("cloud.not_ready", url="-", capacity=4, seconds=1, seen="-")  # any later failing cell
    assert "cleanup --workdir" in "\n".join(friendly_traceback(failed, "de", cloud_run) or [])
