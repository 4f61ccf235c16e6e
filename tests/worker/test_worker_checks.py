"""The seeds' step 2 checks, run for real: the node routing tests and `wrangler deploy --dry-run`."""

from __future__ import annotations

import io
import json

from reservation_lab.domain.runs import RunFolder
from reservation_lab.runtime.nodetests import run_node_tests
from reservation_lab.runtime.wrangler import dry_run


def test_node_routing_tests_pass() -> None:
    result = run_node_tests()
    assert result.passed >= 25 and "# fail 0" in result.output


def test_a_broken_worker_fails_the_node_tests_with_the_counts(tmp_path) -> None:
    """A copy of worker/ whose capacity admits a fifth seat: run_node_tests raises and says how many failed."""
    import shutil

    from reservation_lab.errors import LabError
    from reservation_lab.paths import WORKER_DIR
    from tests.support import raises_key

    for part in ("src", "test"):
        shutil.copytree(WORKER_DIR / part, tmp_path / part)
    shutil.copyfile(WORKER_DIR / "package.json", tmp_path / "package.json")
    validation = tmp_path / "src" / "validation.js"
    validation.write_text(validation.read_text().replace("export const CAPACITY = 4;", "export const CAPACITY = 5;"))
    with raises_key("errors.node_tests_failed", LabError) as caught:
        run_node_tests(worker_dir=tmp_path)
    assert caught.value.message.values["failed"] >= 1


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
