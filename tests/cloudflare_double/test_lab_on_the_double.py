"""Steps 5-7 as the notebook runs them: the real wrangler and the lab's helpers against the Cloudflare double."""

from __future__ import annotations

from pathlib import Path

import pytest

from reservation_lab.cloud import steps
from reservation_lab.cloud.accounts import choose_account
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.domain.burst import send_burst_sync
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.invariants import check_burst, durable_view, expected_summary, expected_totals
from reservation_lab.domain.runs import RunFolder


def secrets_of(double: CloudflareDouble) -> list[str]:
    return [double.token, double.account.id, double.user.email]


def files_containing(root: Path, secret: str) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and not p.is_symlink() and secret.encode() in p.read_bytes()]


def test_deploy_burst_verify_redeploy_cleanup_delete(double: CloudflareDouble, cloud_run: RunFolder,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    identity = steps.whoami(cloud_run)
    assert identity.names() == [f"{double.user.email}'s Account"]  # a fresh free account, named after the e-mail
    assert identity.public()["accounts"] == [{"name": "<your e-mail>'s Account"}]
    assert choose_account(identity, "LabEx Learning") == double.account.id  # the only account: used
    assert "'s Account" in capsys.readouterr().out

    deployment = steps.deploy(cloud_run)
    assert deployment.url == f"https://{cloud_run.name}.lab-learner.workers.dev"
    steps.wait_until_ready(deployment.url, settle=0)
    with LabClient(deployment.url) as client:
        before = client.status("cloud-launch")
        decisions = send_burst_sync(deployment.url, "cloud-launch", 10)
        after = client.status("cloud-launch")
        assert check_burst(decisions, before, after) == expected_summary(10)
        steps.verify(cloud_run, "deployed", app_url=deployment.url, burst_size=10)

        steps.deploy(cloud_run)  # a redeploy replaces the instance, not the SQLite rows
        assert durable_view(client.status("cloud-launch")) == expected_totals(10)
        double.user.faults.settings_without_namespace_id = True  # optional in Cloudflare's binding schema
        steps.verify(cloud_run, "deployed", app_url=deployment.url, burst_size=10)  # joined by class, still PASS

    steps.deploy(cloud_run, cleanup=True)
    assert double.account.namespaces == []
    steps.delete_worker(cloud_run)
    steps.verify(cloud_run, "deleted", attempts=1)
    assert double.account.scripts == {}

    printed = capsys.readouterr().out
    assert printed.count("PASS: deployed") == 2 and "PASS: deleted" in printed
    assert "lists no namespace_id, so the namespace was matched by this Worker and class" in printed
    for secret in secrets_of(double):
        assert secret not in printed
    assert files_containing(cloud_run.logs_dir, double.token) == []


def test_device_login_whoami_token_logout_and_nothing_secret_left(oauth_double: CloudflareDouble, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """wrangler login --device against the double's https OAuth endpoints, then logout revokes the token."""
    from reservation_lab.domain.config import write_wrangler_config
    from reservation_lab.domain.runs import create_run_folder

    run = create_run_folder(tmp_path / "run")
    write_wrangler_config(run, oauth_double.account.id)
    steps.login(run)
    printed = capsys.readouterr().out
    assert "To authorize Wrangler, please visit:" in printed and "Successfully logged in." in printed
    identity = steps.whoami(run)
    assert identity.logged_in and identity.auth_type == "OAuth Token"
    assert identity.names() == [oauth_double.account.name]
    token = steps.api_token(run)
    assert oauth_double.user.authorized(token)
    steps.logout(run)
    assert "Successfully logged out." in capsys.readouterr().out
    assert not oauth_double.user.authorized(token)  # the double revokes it with its refresh token (RFC 7009 §2.1)
    assert steps.whoami(run).logged_in is False
    for secret in (token, oauth_double.user.email):
        assert files_containing(run.root, secret) == []
    assert oauth_double.account.id not in capsys.readouterr().out
