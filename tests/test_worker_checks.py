"""The seeds' step 2 checks, run for real: the node routing tests and `wrangler deploy --dry-run`."""

from __future__ import annotations

import io
import json

from reservation_lab.course.local_lab import dry_run
from reservation_lab.domain.config import RunFolder
from reservation_lab.runtime.nodetests import run_node_tests


def test_node_routing_tests_pass() -> None:
    result = run_node_tests()
    assert result.failed == 0
    assert result.passed >= 25


def test_dry_run_bundles_the_worker(run_folder: RunFolder) -> None:
    out = io.StringIO()
    dry_run(run_folder, echo=out)
    text = out.getvalue()
    assert "--dry-run: exiting now." in text
    assert "env.WORKSHOPS (WorkshopReservations)" in text
    bundle = (run_folder.root / "dist" / "index.js").read_text()
    assert "WorkshopReservations = class" in bundle or "class WorkshopReservations" in bundle
    assert "transactionSync" in bundle
    assert json.loads(run_folder.config.read_text())["name"] == run_folder.name
