"""cloudflare_double.api's upload: what Cloudflare refuses (exports reconciliation, a Worker that throws at startup)
and what wrangler refuses before uploading, each in the learner's words and changing nothing."""

from __future__ import annotations

import pytest

from reservation_lab.cloud import steps
from reservation_lab.cloud.cleanup import left_deployed
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import WranglerError
from tests.support import raises_key


def test_an_edited_worker_without_the_class_is_refused_before_uploading_in_the_learners_language(
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
