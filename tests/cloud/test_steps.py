"""cloud.steps without a Cloudflare account: parsing wrangler's recorded output formats, the guards, the
readiness poll against a real wrangler dev, the offline behaviour of the real wrangler, and the verify wrapper."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from reservation_lab.cloud import steps
from reservation_lab.cloud.steps import (
    Deployment,
    cleanup_config_checked,
    config_account_id,
    delete_worker,
    deploy,
    deployment_from_ndjson,
    last_deployment_url,
    parse_deployment,
    reports_deletion,
    url_from_text,
    wait_until_ready,
)
from reservation_lab.cloud.verify import VerificationFailed
from reservation_lab.domain.burst import send_burst_sync
from reservation_lab.domain.config import write_cleanup_config, write_wrangler_config
from reservation_lab.domain.runs import RunFolder, create_run_folder, open_run
from reservation_lab.errors import LabError
from reservation_lab.i18n import Message
from reservation_lab.runtime.devserver import DevServer
from reservation_lab.runtime.ports import free_port
from reservation_lab.runtime.wrangler import WranglerResult
from tests.support import raises_key

NAME = "labex-c10-o03-0123456789ab"
URL = f"https://{NAME}.example-sub.workers.dev"
LAB_ID = "0123456789abcdef0123456789abcdef"
TOKEN = "cf-test-token-Zq9x7Yw6Vu5Ts4Rr3Qp2On1Ml0Kk"

NDJSON = "\n".join(json.dumps(line) for line in [
    {"version": 1, "type": "wrangler-session", "wrangler_version": "4.132.0",
     "command_line_args": ["deploy", "--config", "wrangler.jsonc"], "log_file_path": "/tmp/logs/wrangler.log",
     "timestamp": "2026-09-18T10:00:00.000Z"},
    {"version": 1, "type": "deploy", "worker_name": NAME, "worker_tag": "4c3f1a2b5d6e7f8091a2b3c4d5e6f708",
     "version_id": "9b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d", "targets": [URL], "worker_name_overridden": False,
     "bundle_size": {"raw_bytes": 9000, "gzip_bytes": 3000}, "timestamp": "2026-09-18T10:00:05.000Z"},
]) + "\n"
PRINTED = f"""Total Upload: 8.79 KiB / gzip: 2.93 KiB
Your Worker has access to the following bindings:
Binding                                          Resource
env.WORKSHOPS (WorkshopReservations)             Durable Object

Uploaded {NAME} (3.21 sec)
Deployed {NAME} triggers (1.05 sec)
  {URL}
Current Version ID: 9b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d
"""
CLEANUP_PRINTED = f"""Uploaded {NAME} (2.10 sec)

\x1b[1mDurable Object exports reconciliation:\x1b[22m
  Deleted: WorkshopReservations
Deployed {NAME} triggers (0.90 sec)
  {URL}
"""


@pytest.fixture
def run(tmp_path: Path) -> RunFolder:
    folder = create_run_folder(tmp_path / "run")
    write_wrangler_config(folder, LAB_ID)
    return folder


@pytest.fixture
def no_wrangler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any wrangler call fail the test."""
    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"wrangler must not run: {args}")

    monkeypatch.setattr(steps, "run_wrangler", forbidden)
    monkeypatch.setattr(steps, "_capture", forbidden)


# wrangler itself, offline

def test_real_wrangler_offline_whoami_token_and_logout(run: RunFolder, offline_home: None,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The pinned wrangler without credentials: whoami says loggedIn false (printing nothing), no token, logout ok."""
    identity = steps.whoami(run)
    assert identity.logged_in is False and identity.accounts == ()
    assert capsys.readouterr().out == ""
    with raises_key("cloud.token_failed", LabError):
        steps.api_token(run)
    steps.logout(run)
    assert "Not logged in" in capsys.readouterr().out


def stored_login(home: Path, token: str) -> None:
    """A wrangler OAuth login as `wrangler login` stores it (workers-auth: <config>/.wrangler/config/default.toml)."""
    config = home / ".config" / ".wrangler" / "config"
    config.mkdir(parents=True)
    (config / "default.toml").write_text(
        f'oauth_token = "{token}"\nrefresh_token = "refresh-{token}"\n'
        'expiration_time = "2099-01-01T00:00:00.000Z"\nscopes = ["account:read", "user:read", "workers:write"]\n')


def files_containing(root: Path, secret: str) -> list[str]:
    return [str(path.relative_to(root)) for path in root.rglob("*")
            if path.is_file() and not path.is_symlink() and secret.encode() in path.read_bytes()]


def test_the_login_token_is_in_no_file_the_run_leaves(run: RunFolder, tmp_path: Path, offline_home: None) -> None:
    """The real wrangler's `auth token --json` prints the stored login's token; its debug log would keep it."""
    stored_login(tmp_path / "home", TOKEN)
    assert steps.api_token(run) == TOKEN
    assert files_containing(run.root, TOKEN) == []
    assert files_containing(tmp_path / "home", TOKEN) == [".config/.wrangler/config/default.toml"]  # wrangler's own


def test_only_local_wrangler_commands_keep_a_debug_log() -> None:
    from reservation_lab.runtime.wrangler import keeps_debug_log
    assert keeps_debug_log(("dev", "--config", "wrangler.jsonc")) and keeps_debug_log(("--version",))
    assert keeps_debug_log(("deploy", "--dry-run", "--config", "wrangler.jsonc"))
    for args in (("auth", "token", "--json"), ("whoami", "--json"), ("deploy", "--config", "wrangler.jsonc"),
                 ("delete", "--config", "wrangler.cleanup.jsonc"), ("login", "--device"), ("logout",), ()):
        assert not keeps_debug_log(args), args


def test_api_token_prefers_the_environment(run: RunFolder, monkeypatch: pytest.MonkeyPatch, no_wrangler: None) -> None:
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", TOKEN)
    assert steps.api_token(run) == TOKEN


# deploy output

def test_url_and_version_from_ndjson() -> None:
    assert deployment_from_ndjson(NDJSON) == Deployment(url=URL, version_id="9b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d")
    assert parse_deployment(NDJSON, "") == Deployment(url=URL, version_id="9b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d")


def test_ndjson_without_deploy_entry_or_with_routes_only() -> None:
    assert deployment_from_ndjson(NDJSON.splitlines()[0] + "\nnot json\n") is None
    routes_only = json.dumps({"version": 1, "type": "deploy", "worker_name": NAME, "version_id": "v1",
                              "targets": ["shop.example.com/*", "schedule: */5 * * * *"]})
    assert deployment_from_ndjson(routes_only) == Deployment(url=None, version_id="v1")
    assert parse_deployment(routes_only, PRINTED) == Deployment(url=URL, version_id="v1")


def test_url_from_printed_text_takes_the_last() -> None:
    text = PRINTED + "  https://labex-c10-o03-0123456789ab.other-sub.workers.dev\n"
    assert url_from_text(text) == "https://labex-c10-o03-0123456789ab.other-sub.workers.dev"
    assert url_from_text("\x1b[36m" + URL + "\x1b[0m") == URL
    assert parse_deployment("", PRINTED).url == URL


def test_missing_url_is_a_clear_error() -> None:
    with raises_key("cloud.no_workers_dev", LabError):
        parse_deployment("", "Uploaded x (1 sec)\nhttps://example.com\n")
    assert parse_deployment("", "nothing", required=False) == Deployment(url=None)


def test_cleanup_deletion_detection() -> None:
    assert reports_deletion(CLEANUP_PRINTED)
    assert reports_deletion("  Deleted:   WorkshopReservations, OldThing\n")
    assert reports_deletion("\x1b[32mDeleted\x1b[0m: WorkshopReservations")
    assert not reports_deletion(PRINTED)
    assert not reports_deletion("  Created: WorkshopReservations\n")
    assert not reports_deletion("  Deleted: OldThing\nWorkshopReservations\n")


def fake_wrangler(monkeypatch: pytest.MonkeyPatch, printed: str, ndjson: str | None) -> list[dict[str, Any]]:
    """Replace run_wrangler: record the call, write the ND-JSON output file like wrangler, print `printed`."""
    calls: list[dict[str, Any]] = []

    def run_wrangler(*args: str, **kwargs: Any) -> WranglerResult:
        calls.append({"args": args, **kwargs})
        out = (kwargs.get("extra_env") or {}).get("WRANGLER_OUTPUT_FILE_PATH")
        if out and ndjson is not None:
            Path(out).write_text(ndjson)
        return WranglerResult(args=args, returncode=0, output=printed)

    monkeypatch.setattr(steps, "run_wrangler", run_wrangler)
    return calls


def test_deploy_reads_its_own_output_file(run: RunFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_wrangler(monkeypatch, PRINTED, NDJSON)
    assert deploy(run).url == URL
    assert deploy(run).url == URL
    assert calls[0]["args"] == ("deploy", "--config", str(run.config))
    assert calls[0]["cwd"] == run.root
    files = [Path(c["extra_env"]["WRANGLER_OUTPUT_FILE_PATH"]) for c in calls]
    assert files == [run.logs_dir / "deploy-1.ndjson", run.logs_dir / "deploy-2.ndjson"]
    assert last_deployment_url(run) == URL


def test_deploy_falls_back_to_text_and_fails_without_url(run: RunFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_wrangler(monkeypatch, PRINTED, None)
    assert deploy(run) == Deployment(url=URL)
    fake_wrangler(monkeypatch, "Uploaded (1 sec)\n", None)
    with raises_key("cloud.no_workers_dev", LabError):
        deploy(run)


def test_cleanup_deploy_requires_the_deletion_report(run: RunFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    write_cleanup_config(run, LAB_ID)
    calls = fake_wrangler(monkeypatch, CLEANUP_PRINTED, None)
    deploy(run, cleanup=True)
    assert calls[0]["args"] == ("deploy", "--config", str(run.cleanup_config))
    assert calls[0]["extra_env"]["WRANGLER_OUTPUT_FILE_PATH"].endswith("cleanup-deploy-1.ndjson")
    fake_wrangler(monkeypatch, PRINTED, None)
    with raises_key("cloud.not_deleted", LabError, class_name="WorkshopReservations"):
        deploy(run, cleanup=True)


def test_deploy_without_config(tmp_path: Path, no_wrangler: None) -> None:
    with raises_key("cloud.config_missing", LabError, name="wrangler.jsonc"):
        deploy(create_run_folder(tmp_path / "bare"))


# delete guards

def test_delete_refuses_a_bad_run_name(tmp_path: Path, no_wrangler: None) -> None:
    bad = RunFolder(root=tmp_path, name="my-production-worker")
    (tmp_path / "wrangler.cleanup.jsonc").write_text(json.dumps({"name": "my-production-worker"}))
    with raises_key("errors.not_a_run_name", LabError, name='"my-production-worker"'):
        delete_worker(bad)
    with raises_key("errors.not_a_run_name", LabError, name='"my-production-worker"'):
        deploy(bad, cleanup=True)


def test_delete_refuses_a_cleanup_config_for_another_worker(run: RunFolder, no_wrangler: None) -> None:
    with raises_key("cloud.cleanup_config_missing", LabError, name=run.cleanup_config.name):
        delete_worker(run)
    run.cleanup_config.write_text(json.dumps({"name": "labex-c10-o03-ffffffffffff", "main": "src/cleanup.js"}))
    with raises_key("cloud.cleanup_config_other_worker", LabError):
        delete_worker(run)
    with raises_key("cloud.cleanup_config_other_worker", LabError):
        deploy(run, cleanup=True)
    run.cleanup_config.write_text("{not json")
    with raises_key("cloud.cleanup_config_not_json", LabError):
        cleanup_config_checked(run)


def asked_and_deleted(name: str, deleted: str | None = None) -> str:
    """wrangler delete's lines (cli.js:228272 the confirmation, 228290 the result), answered non-interactively."""
    return (f"? Are you sure you want to delete {name}? This action cannot be undone.\n"
            "🤖 Using fallback value in non-interactive context: yes\n"
            f"Successfully deleted {deleted or name}\n")


def test_delete_runs_wrangler_delete_without_force_and_checks_the_name_it_asked_about(
        run: RunFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    write_cleanup_config(run, LAB_ID)
    calls = fake_wrangler(monkeypatch, asked_and_deleted(run.name), None)
    delete_worker(run)
    assert calls[0]["args"] == ("delete", "--config", str(run.cleanup_config))
    for printed in ("--dry-run: exiting now.\n", f"Successfully deleted {run.name}\n",
                    asked_and_deleted("labex-c10-o03-000000000000"), asked_and_deleted(run.name, "other")):
        fake_wrangler(monkeypatch, printed, None)
        with pytest.raises(LabError) as raised:
            delete_worker(run)
        assert raised.value.message.key == "cloud.delete_unconfirmed"


# readiness

def test_wait_until_ready_against_real_dev_server(dev_server: DevServer) -> None:
    started = time.monotonic()
    wait_until_ready(dev_server.base_url, timeout=30, settle=0)
    assert time.monotonic() - started < 20  # returned on the first answer, well before its 30 s (a loaded machine)
    send_burst_sync(dev_server.base_url, "readiness", 1)  # the probe object is no longer fresh
    with raises_key("cloud.not_ready", LabError, seconds=2) as raised:
        wait_until_ready(dev_server.base_url, timeout=2, settle=0)
    seen = raised.value.message.values["seen"]
    assert seen.startswith("HTTP 200 ") and '"reserved": 1' in seen


def test_wait_until_ready_gives_up_on_a_silent_port() -> None:
    started = time.monotonic()
    with raises_key("cloud.not_ready", LabError, seconds=2,
                    seen=Message("cloud.probe_no_answer", {"error": "ConnectError"})):
        wait_until_ready(f"http://127.0.0.1:{free_port()}", timeout=2, settle=0)
    assert 1.5 < time.monotonic() - started < 6


def test_wait_until_ready_polls_through_early_answers() -> None:
    answers = [httpx.Response(503, text="starting"), httpx.Response(404, json={"error": "not_found"}),
               httpx.Response(200, json={"workshop": "readiness", "capacity": 4, "reserved": 0})]
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return answers[len(seen) - 1]

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        wait_until_ready("https://w.example.workers.dev/", timeout=5, settle=0, client=client, interval=0)
    assert seen == ["/workshops/readiness/status"] * 3


# the verify wrapper and run folders

def cloudflare(settings_status: int, namespaces: list[dict]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/settings"):
            errors = [] if settings_status == 200 else [{"code": 10007, "message": "script_not_found"}]
            return httpx.Response(settings_status, json={"success": not errors, "errors": errors, "messages": [],
                                                         "result": {"bindings": []} if not errors else None})
        return httpx.Response(200, json={"success": True, "errors": [], "messages": [], "result": namespaces,
                                         "result_info": {"page": 1, "per_page": 100, "count": len(namespaces),
                                                         "total_count": len(namespaces), "total_pages": 1}})

    return httpx.MockTransport(handler)


def test_verify_deleted_prints_pass(run: RunFolder, capsys: pytest.CaptureFixture[str]) -> None:
    verdict = steps.verify(run, "deleted", token=TOKEN, transport=cloudflare(404, []))
    out = capsys.readouterr().out
    assert verdict.passed and out.rstrip().endswith("PASS: deleted")
    assert LAB_ID not in out and TOKEN not in out


def test_verify_deleted_fails_loudly(run: RunFolder, capsys: pytest.CaptureFixture[str]) -> None:
    with raises_key("verify.fail", VerificationFailed, mode="deleted") as caught:
        steps.verify(run, "deleted", account_id=LAB_ID, token=TOKEN, transport=cloudflare(200, []), attempts=1)
    still_exists = Message("verify.problem", {"label": Message("verify.label_worker"),
                                              "detail": Message("verify.worker_exists")})
    assert still_exists in caught.value.message.values["problems"]
    assert LAB_ID not in str(caught.value) and TOKEN not in str(caught.value)
    assert "PASS" not in capsys.readouterr().out


def test_verify_refuses_unknown_mode_and_missing_url(run: RunFolder, no_wrangler: None) -> None:
    with raises_key("cloud.verify_mode", LabError):
        steps.verify(run, "deploy", token=TOKEN)
    with raises_key("cloud.no_deploy_url", LabError):
        steps.verify(run, "deployed", token=TOKEN, transport=cloudflare(200, []))


def test_account_id_and_open_run(run: RunFolder, tmp_path: Path) -> None:
    assert config_account_id(run) == LAB_ID
    assert open_run(run.root) == run
    bare = create_run_folder(tmp_path / "bare")
    write_wrangler_config(bare)
    with raises_key("cloud.no_account_id", LabError):
        config_account_id(bare)
    with raises_key("cloud.run_folder_no_config", LabError):
        open_run(tmp_path / "nowhere")


def test_what_uploads_nothing_is_told_apart_from_what_may_have_uploaded() -> None:
    """Failures before the upload (no login in wrangler 4.132's two wordings, no subdomain on a first deploy, 10034, a
    refused reconciliation) are "nothing uploaded"; once wrangler printed the upload, nothing is."""
    from reservation_lab.cloud.steps import _nothing_uploaded

    not_logged_in = ("✘ [ERROR] Not logged in. Could not authenticate because no credentials were found. Please run "
                     "`wrangler login`.")
    non_interactive = ("✘ [ERROR] In a non-interactive environment, it's necessary to set a CLOUDFLARE_API_TOKEN "
                       "environment variable for wrangler to work.")
    assert _nothing_uploaded(not_logged_in, "") == _nothing_uploaded(non_interactive, "") == "cloud.not_logged_in"
    assert _nothing_uploaded("You need to register a workers.dev subdomain before", "") == "cloud.no_subdomain"
    assert _nothing_uploaded("x", '{"type":"command-failed","code":10034}') == "cloud.email_unverified"
    assert _nothing_uploaded("fetch failed", "") is None
    uploaded = "Uploaded labex-c10-o03-0123456789ab (1.2 sec)\nYou need to register a workers.dev subdomain before"
    assert _nothing_uploaded(uploaded, "") is None  # an existing Worker's subdomain step comes after its upload
