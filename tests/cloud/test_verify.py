"""The verifier's verdicts: Cloudflare's API mocked at the HTTP transport, the Worker a real local wrangler dev."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from reservation_lab.cli import main
from reservation_lab.cloud import steps
from reservation_lab.cloud.api import CloudflareAPI
from reservation_lab.cloud.verify import (
    Verdict,
    VerificationFailed,
    expected_totals,
    run_checks,
    verify_deleted,
    verify_deployed,
)
from reservation_lab.domain.burst import send_burst_sync
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.runs import create_run_folder
from reservation_lab.i18n import Message
from reservation_lab.runtime.devserver import DevServer, start_dev_server
from reservation_lab.runtime.ports import port_is_free
from reservation_lab.runtime.processes import group_members

TOKEN = "cf-test-token-Zq9x7Yw6Vu5Ts4Rr3Qp2On1Ml0Kk"
ACCOUNT = "0123456789abcdef0123456789abcdef"
GOOD_BINDING = {"type": "durable_object_namespace", "name": "WORKSHOPS", "class_name": "WorkshopReservations",
                "namespace_id": "f" * 32}  # the id of namespace() below: the binding is joined to it
GOOD_BINDING_LIST = [GOOD_BINDING, {"type": "plain_text", "name": "MODE", "text": "lab"}]
NOT_FOUND = {"code": 10007, "message": "workers.api.error.script_not_found"}


def envelope(result: Any = None, errors: list[dict] | None = None, info: dict | None = None) -> dict:
    body: dict[str, Any] = {"success": not errors, "errors": errors or [], "messages": [], "result": result}
    if info is not None:
        body["result_info"] = info
    return body


def namespace(script: str, cls: str = "WorkshopReservations", sqlite: bool = True) -> dict:
    return {"id": "f" * 32, "name": f"{script}_{cls}", "script": script, "class": cls, "use_sqlite": sqlite}


def fake_api(
    script: str,
    bindings: list[dict] | None = None,
    pages: list[list[dict]] | None = None,
    settings: tuple[int, dict] | None = None,
    everything: Callable[[httpx.Request], httpx.Response] | None = None,
) -> CloudflareAPI:
    """A CloudflareAPI whose transport answers like Cloudflare for one account."""
    pages = pages if pages is not None else [[namespace(script)]]

    def handler(request: httpx.Request) -> httpx.Response:
        if everything is not None:
            return everything(request)
        path = request.url.path
        if path == f"/client/v4/accounts/{ACCOUNT}/workers/scripts/{script}/settings":
            if settings is not None:
                return httpx.Response(settings[0], json=settings[1])
            return httpx.Response(200, json=envelope({"bindings": GOOD_BINDING_LIST if bindings is None else bindings}))
        if path == f"/client/v4/accounts/{ACCOUNT}/workers/durable_objects/namespaces":
            page = int(request.url.params.get("page", "1"))
            info = {"page": page, "per_page": 100, "count": len(pages[page - 1]),
                    "total_count": sum(map(len, pages)), "total_pages": len(pages)}
            return httpx.Response(200, json=envelope(pages[page - 1], info=info))
        return httpx.Response(404, json=envelope(errors=[{"code": 7003, "message": "No route for the URI"}]))

    return CloudflareAPI(TOKEN, ACCOUNT, transport=httpx.MockTransport(handler))



def status_only(status: int, errors: list[dict]) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, json=envelope(errors=errors))


def refused(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request)


def reserve_cloud_launch(base_url: str, size: int = 10) -> None:
    decisions = send_burst_sync(base_url, "cloud-launch", size, prefix="cloud-request")
    assert sorted(d.status_code for d in decisions) == [201] * 4 + [409] * (size - 4)


@pytest.fixture(scope="module")
def cloud_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """One real wrangler dev shared by the API-variant tests, with step 5's burst already sent to cloud-launch."""
    run = create_run_folder(tmp_path_factory.mktemp("verify") / "run")
    write_wrangler_config(run)
    server: DevServer = start_dev_server(run)
    try:
        reserve_cloud_launch(server.base_url)
        yield run.name, server.base_url
    finally:
        server.stop()
    assert group_members(server.pgid) == [] and port_is_free(server.port)


# deployed mode against the fixture's own wrangler dev

def test_deployed_pass_against_real_worker(dev_server: DevServer, run_folder) -> None:
    """cloud-launch 4/4 after 10 requests, fresh 12-request burst 4/8, API shapes right: PASS."""
    reserve_cloud_launch(dev_server.base_url)
    verdict = verify_deployed(fake_api(run_folder.name), run_folder.name, dev_server.base_url, burst_size=10)
    assert verdict.passed, verdict.problems
    assert verdict.summary() == "PASS: deployed"
    assert len(verdict.checks) == 4
    assert "4 accepted, 8 rejected" in verdict.checks[3]
    with LabClient(dev_server.base_url) as client:
        assert client.status("cloud-launch")["acceptedRequests"] == 4  # the verification used its own workshop


def test_untouched_cloud_launch_fails(dev_server: DevServer, run_folder) -> None:
    verdict = verify_deployed(fake_api(run_folder.name), run_folder.name, dev_server.base_url, burst_size=10)
    assert not verdict.passed
    assert len(verdict.problems) == 1 and verdict.problems[0].startswith("cloud-launch:")
    assert '"reserved": 0' in verdict.problems[0]
    assert verdict.summary().startswith("FAIL: deployed: cloud-launch")


def test_twice_in_a_row_uses_new_workshops(cloud_app: tuple[str, str]) -> None:
    script, url = cloud_app
    assert verify_deployed(fake_api(script), script, url).passed
    assert verify_deployed(fake_api(script), script, url).passed


def test_reused_verification_workshop_is_not_fresh(cloud_app: tuple[str, str]) -> None:
    script, url = cloud_app
    assert verify_deployed(fake_api(script), script, url, workshop="verify-reused").passed
    verdict = verify_deployed(fake_api(script), script, url, workshop="verify-reused")
    assert not verdict.passed and "was not fresh" in verdict.problems[0]


def test_wrong_burst_size_names_cloud_launch(cloud_app: tuple[str, str]) -> None:
    script, url = cloud_app
    verdict = verify_deployed(fake_api(script), script, url, burst_size=12)
    assert not verdict.passed and "cloud-launch" in verdict.problems[0] and '"rejectedRequests": 8' in \
        verdict.problems[0]


@pytest.mark.parametrize("bindings, expected", [
    ([], "binding WORKSHOPS is missing"),
    ([{"type": "kv_namespace", "name": "OTHER", "namespace_id": "1" * 32}], "bindings: OTHER"),
    ([{**GOOD_BINDING, "class_name": "SomethingElse"}], 'points to class "SomethingElse"'),
    ([{**GOOD_BINDING, "type": "service"}], 'has type "service"'),
    ([{**GOOD_BINDING, "script_name": "another-worker"}], "another Worker's class"),
])
def test_binding_problems(cloud_app: tuple[str, str], bindings: list[dict], expected: str) -> None:
    script, url = cloud_app
    verdict = verify_deployed(fake_api(script, bindings=bindings), script, url)
    assert not verdict.passed
    assert [p.split(":")[0] for p in verdict.problems] == ["binding"]
    assert expected in verdict.problems[0]


def test_namespace_without_sqlite(cloud_app: tuple[str, str]) -> None:
    script, url = cloud_app
    verdict = verify_deployed(fake_api(script, pages=[[namespace(script, sqlite=False)]]), script, url)
    assert not verdict.passed and "not SQLite-backed (use_sqlite=false)" in verdict.problems[0]


def test_namespace_missing_or_of_another_worker(cloud_app: tuple[str, str]) -> None:
    script, url = cloud_app
    pages = [[namespace("labex-c10-o03-ffffffffffff"), namespace(script, cls="Other")]]
    verdict = verify_deployed(fake_api(script, pages=pages), script, url)
    assert not verdict.passed and "no Durable Object namespace" in verdict.problems[0]
    assert "2 namespaces" in verdict.problems[0]


def test_binding_to_another_namespace_fails(cloud_app: tuple[str, str]) -> None:
    """Binding and namespace each look right, but the binding's namespace_id is not this namespace's id."""
    script, url = cloud_app
    elsewhere = [{**GOOD_BINDING, "namespace_id": "e" * 32}]
    verdict = verify_deployed(fake_api(script, bindings=elsewhere), script, url)
    assert not verdict.passed
    assert [p.split(":")[0] for p in verdict.problems] == ["namespace"]
    assert f"points to namespace {'e' * 32}" in verdict.problems[0]


def test_namespace_on_page_two_passes(cloud_app: tuple[str, str]) -> None:
    script, url = cloud_app
    pages = [[namespace(f"other-{i}") for i in range(100)], [namespace(script)]]
    verdict = verify_deployed(fake_api(script, pages=pages), script, url)
    assert verdict.passed, verdict.problems


@pytest.mark.parametrize("handler, expected", [
    (status_only(401, [{"code": 10001, "message": "Unable to authenticate request"}]), "refused the credentials"),
    (status_only(403, [{"code": 10000, "message": "Authentication error"}]), "refused the credentials"),
    (refused, "Could not reach the Cloudflare API"),
    (status_only(502, [{"code": 10013, "message": "An unknown error has occurred"}]), "server error"),
])
def test_api_failures_never_pass_deployed(cloud_app: tuple[str, str], handler, expected: str) -> None:
    script, url = cloud_app
    verdict = verify_deployed(fake_api(script, everything=handler), script, url)
    assert not verdict.passed
    assert [p.split(":")[0] for p in verdict.problems] == ["binding", "namespace"]
    assert all(expected in p for p in verdict.problems)
    assert len(verdict.checks) == 2  # the Worker checks still ran and passed
    assert TOKEN not in verdict.summary() and ACCOUNT not in verdict.summary()


def test_works_inside_a_running_event_loop(cloud_app: tuple[str, str]) -> None:
    """The notebook calls the verifier from a kernel whose event loop is running."""
    script, url = cloud_app

    async def in_kernel() -> Verdict:
        return verify_deployed(fake_api(script), script, url)

    assert asyncio.run(in_kernel()).passed


def test_unreachable_worker_fails(cloud_app: tuple[str, str]) -> None:
    from reservation_lab.runtime.ports import free_port

    script, _ = cloud_app
    verdict = verify_deployed(fake_api(script), script, f"http://127.0.0.1:{free_port()}")
    assert not verdict.passed
    assert [p.split(":")[0] for p in verdict.problems] == ["cloud-launch", "concurrent verification"]
    assert "ConnectError" in verdict.problems[0]


# deleted mode (Cloudflare's API only)

SCRIPT = "labex-c10-o03-0123456789ab"
GONE = (404, envelope(errors=[NOT_FOUND]))


def test_deleted_pass_on_10007_and_no_namespace() -> None:
    verdict = verify_deleted(fake_api(SCRIPT, settings=GONE, pages=[[namespace("labex-c10-o03-aaaaaaaaaaaa")]]),
                             SCRIPT)
    assert verdict.passed, verdict.problems
    assert verdict.summary() == "PASS: deleted"
    assert "10007" in verdict.checks[0]


def test_deleted_but_script_still_exists() -> None:
    verdict = verify_deleted(fake_api(SCRIPT, pages=[[]]), SCRIPT)
    assert not verdict.passed and verdict.problems == ["Worker: the Worker still exists (its settings are readable)."]


def test_deleted_but_namespace_still_present_on_page_two() -> None:
    pages = [[namespace(f"other-{i}") for i in range(100)], [namespace(SCRIPT)]]
    verdict = verify_deleted(fake_api(SCRIPT, settings=GONE, pages=pages), SCRIPT)
    assert not verdict.passed
    assert verdict.problems == ["namespace: namespace(s) of this Worker remain: WorkshopReservations."]


def test_a_404_that_says_no_script_is_missing_is_no_proof() -> None:
    other = (404, envelope(errors=[{"code": 7003, "message": "Could not route to /accounts/…"}]))
    verdict = verify_deleted(fake_api(SCRIPT, settings=other, pages=[[]]), SCRIPT)
    assert not verdict.passed and "7003" in verdict.problems[0]


@pytest.mark.parametrize("handler, expected", [
    (status_only(401, [{"code": 10001, "message": "Unable to authenticate request"}]), "refused the credentials"),
    (status_only(403, [{"code": 10000, "message": "Authentication error"}]), "refused the credentials"),
    (refused, "Could not reach"),
    (status_only(500, [{"code": 10013, "message": "An unknown error has occurred"}]), "server error"),
    (lambda request: httpx.Response(503, text="<html>unavailable</html>"), "not a JSON object"),
])
def test_api_failures_never_pass_deleted(handler, expected: str) -> None:
    verdict = verify_deleted(fake_api(SCRIPT, everything=handler), SCRIPT)
    assert not verdict.passed and verdict.checks == []
    assert len(verdict.problems) == 2 and all(expected in p for p in verdict.problems)


def test_deleted_retries_while_the_deletion_propagates() -> None:
    listed: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/settings"):
            return httpx.Response(*GONE[:1], json=GONE[1])
        listed.append(1)
        return httpx.Response(200, json=envelope([namespace(SCRIPT)] if len(listed) == 1 else []))

    verdict = verify_deleted(fake_api(SCRIPT, everything=handler), SCRIPT, attempts=3, delay=0)
    assert verdict.passed and len(listed) == 2
    assert not verify_deleted(fake_api(SCRIPT, settings=GONE, pages=[[namespace(SCRIPT)]]), SCRIPT, attempts=2,
                              delay=0).passed


# plumbing

def test_a_check_that_breaks_unexpectedly_is_a_problem() -> None:
    def broken() -> Message:
        raise KeyError("capacity")

    fine = Message("verify.worker_gone")
    verdict = run_checks("deployed", [(Message("verify.label_worker"), lambda: fine),
                                      (Message("verify.label_binding"), broken)])
    assert verdict.passed is False and verdict.proved == [fine]
    assert verdict.problems == ["binding: KeyError: 'capacity'"]
    assert verdict.checks == ["the Worker is gone (settings lookup: not found, 10007)"]
    assert run_checks("deleted", []).passed


def test_expected_totals() -> None:
    assert expected_totals(10) == {"capacity": 4, "reserved": 4, "acceptedRequests": 4, "rejectedRequests": 6,
                                   "acceptedSeats": 4}
    assert expected_totals(2)["reserved"] == 2


def test_command_exit_codes(tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    run = create_run_folder(tmp_path / "run")
    write_wrangler_config(run, ACCOUNT)

    def fail(*args: Any, **kwargs: Any) -> None:
        raise VerificationFailed("verify.fail", mode="deleted", problems=[Message("verify.worker_exists")])

    monkeypatch.setattr(steps, "verify", fail)
    assert main(["verify", "deleted", "--workdir", str(run.root), "--burst-size", "10"]) == 1
    assert "FAIL: deleted" in capsys.readouterr().err
    monkeypatch.setattr(steps, "verify", lambda *a, **k: None)
    assert main(["verify", "deployed", "--workdir", str(run.root), "--app-url", "http://127.0.0.1:9"]) == 0
    assert main(["verify", "deleted", "--workdir", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_module_entry_point_without_login_is_an_error(tmp_path) -> None:
    """`python -m reservation_lab verify` with the real wrangler and no credentials: exit 2, never PASS."""
    run = create_run_folder(tmp_path / "run")
    write_wrangler_config(run, ACCOUNT)
    env = {key: value for key, value in os.environ.items() if not key.startswith("CLOUDFLARE_")}
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"))
    proc = subprocess.run([sys.executable, "-m", "reservation_lab", "verify", "deleted", "--workdir", str(run.root)],
                          capture_output=True, text=True, timeout=180, env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "login cell" in proc.stderr and "PASS" not in proc.stdout
    assert ACCOUNT not in proc.stdout + proc.stderr
