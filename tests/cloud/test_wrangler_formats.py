"""Contract: the wrangler output the cloud steps parse, confirmed against the installed, pinned wrangler itself.

What works offline is run for real (whoami and auth token without credentials, deploy --dry-run with an output
file); the rest is read from the pinned package's own bundle, so a wrangler upgrade that rewords a format fails
here, not in a learner's cleanup.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from reservation_lab.cloud.accounts import parse_whoami
from reservation_lab.cloud.steps import deployment_from_ndjson, reports_deletion
from reservation_lab.domain.config import CLASS_NAME
from reservation_lab.domain.runs import RunFolder
from reservation_lab.paths import WORKER_DIR
from reservation_lab.runtime.toolchain import find_toolchain
from reservation_lab.runtime.wrangler import run_wrangler, wrangler_env

BUNDLE = WORKER_DIR / "node_modules" / "wrangler" / "wrangler-dist" / "cli.js"


@pytest.fixture(scope="module")
def bundle() -> str:
    return BUNDLE.read_text()


def offline_wrangler(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """The pinned wrangler with an empty HOME (no credentials) and no Cloudflare API token."""
    env = wrangler_env(home / "logs", {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    env = {key: value for key, value in env.items() if not key.startswith("CLOUDFLARE_API")}
    return subprocess.run(find_toolchain().wrangler_argv(*args), cwd=home, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_whoami_json_logged_out_is_exactly_logged_in_false_with_exit_1(tmp_path: Path) -> None:
    result = offline_wrangler("whoami", "--json", home=tmp_path)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"loggedIn": False}
    assert parse_whoami(result.stdout).logged_in is False


def test_auth_token_json_fails_when_logged_out(tmp_path: Path) -> None:
    result = offline_wrangler("auth", "token", "--json", home=tmp_path)
    assert result.returncode == 1 and "Not logged in" in result.stdout + result.stderr


def test_the_ndjson_deploy_entry_of_a_dry_run(run_folder: RunFolder, tmp_path: Path) -> None:
    """deploy --dry-run writes a real `type: "deploy"` entry (no targets, no version: nothing was uploaded)."""
    out = tmp_path / "out.ndjson"
    run_wrangler("deploy", "--dry-run", "--outdir", "dist", cwd=run_folder.root, echo=None,
                 extra_env={"WRANGLER_OUTPUT_FILE_PATH": str(out)})
    entries = [json.loads(line) for line in out.read_text().splitlines()]
    deploys = [entry for entry in entries if entry["type"] == "deploy"]
    assert len(deploys) == 1 and deploys[0]["worker_name"] == run_folder.name and deploys[0]["version_id"] is None
    assert "targets" not in deploys[0]
    assert deployment_from_ndjson(out.read_text()).url is None


def test_a_real_deploys_entry_carries_targets_and_version_id(bundle: str) -> None:
    """Only a real deploy fills `targets` (the URLs) and `version_id`: the fields the deploy step reads."""
    start = bundle.index('  writeOutput({\n    type: "deploy",')
    entry = bundle[start:start + 600]
    assert "version_id: result.versionId," in entry and "targets: result.targets," in entry
    sample = json.dumps({"type": "deploy", "version": 1, "version_id": "v-1",
                         "targets": ["https://labex-c10-o03-0123456789ab.lab.workers.dev"]})
    found = deployment_from_ndjson(sample)
    assert found.url == "https://labex-c10-o03-0123456789ab.lab.workers.dev" and found.version_id == "v-1"


def test_the_tombstone_deploys_deletion_line(bundle: str) -> None:
    assert 'logger.log(`  Deleted: ${result.deleted.join(", ")}`);' in bundle
    assert reports_deletion(f"Durable Object exports reconciliation:\n  Deleted: {CLASS_NAME}\n")
    assert not reports_deletion(f"Durable Object exports reconciliation:\n  Created: {CLASS_NAME}\n")


def test_wrangler_deletes_success_line(bundle: str) -> None:
    """`wrangler delete` logs "Successfully deleted" and the script name (console-style: joined by a space)."""
    assert 'logger2.log("Successfully deleted", scriptName);' in bundle


def test_dev_servers_ready_and_reload_lines(dev_server) -> None:
    """start_dev_server waits for `Ready on http://127.0.0.1:<port>`, the experiments for the reload line."""
    from reservation_lab.runtime.devserver import RELOAD_LINE, ready_line

    assert ready_line(dev_server.port) in dev_server.log_text()
    mark = dev_server.log_size()
    assert not dev_server.wait_for_log(RELOAD_LINE, since=mark, timeout=0.2)  # nothing changed yet
    index = dev_server.run.root / "src" / "index.js"
    index.write_text(index.read_text() + "\n// touched\n")
    assert dev_server.wait_for_log(RELOAD_LINE, since=mark, timeout=30), dev_server.log_text()[-800:]
    assert RELOAD_LINE in dev_server.log_text(since_start=True)


def test_the_token_command_is_never_offered_for_pasting(run_folder: RunFolder, offline_home: None,
                                                        capsys) -> None:
    from reservation_lab.cloud import steps
    from reservation_lab.errors import LabError
    from reservation_lab.runtime.context import Context

    showing = Context(show_commands=True)
    with pytest.raises(LabError):
        steps.api_token(run_folder, showing)
    steps.whoami(run_folder, showing)
    out = capsys.readouterr().out
    assert "$ npx wrangler whoami --json" in out and "auth token" not in out
