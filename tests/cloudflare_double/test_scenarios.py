"""What a real account can do to a learner, played by the double against the real wrangler and the helpers."""

from __future__ import annotations

import pytest

from reservation_lab.cloud import steps as cloud
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.domain.config import RunFolder
from reservation_lab.errors import LabError, WranglerError
from reservation_lab.i18n import message


def test_an_account_without_workers_dev_subdomain_is_told_what_to_do(double: CloudflareDouble, cloud_run: RunFolder
                                                                     ) -> None:
    double.account.subdomain = None
    with pytest.raises(LabError) as raised:
        cloud.deploy(cloud_run)
    assert raised.value.message.key == "cloud.no_subdomain"
    assert "Workers & Pages" in raised.value.localized("de") and "npx wrangler deploy" in raised.value.localized("de")
    assert "<hidden" not in str(raised.value) and "onboarding" not in str(raised.value)  # no dead link
    assert double.account.scripts == {} and double.account.namespaces == []  # nothing uploaded


def test_the_cleanup_deploy_run_twice_says_the_namespace_is_already_gone(
        double: CloudflareDouble, cloud_run: RunFolder, capsys: pytest.CaptureFixture[str]) -> None:
    cloud.deploy(cloud_run)
    cloud.deploy(cloud_run, cleanup=True)
    assert "Deleted: WorkshopReservations" in capsys.readouterr().out
    cloud.deploy(cloud_run, cleanup=True)  # Cloudflare: [stale_tombstone], no Deleted: line
    printed = capsys.readouterr().out
    assert "[stale_tombstone] WorkshopReservations" in printed and "Deleted:" not in printed
    assert message("cloud.already_deleted", class_name="WorkshopReservations") in printed
    cloud.delete_worker(cloud_run)
    assert double.account.scripts == {}


def test_delete_without_a_tombstone_first_deletes_nothing(double: CloudflareDouble, cloud_run: RunFolder,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """No --force: a Worker whose namespace still exists is not deleted (with --force both would vanish)."""
    cloud.deploy(cloud_run)
    with pytest.raises(WranglerError):
        cloud.delete_worker(cloud_run)
    assert f"Are you sure you want to delete {cloud_run.name}? " in capsys.readouterr().out
    assert list(double.account.scripts) == [cloud_run.name]
    assert [n.class_name for n in double.account.namespaces] == ["WorkshopReservations"]
    assert ("DELETE", f"/accounts/{double.account.id}/workers/services/{cloud_run.name}") in double.requests
