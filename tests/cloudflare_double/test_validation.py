"""What Cloudflare refuses at deploy time (cloudflare_double.validation): each rule on the lab's real Worker sources and
configs, and the real wrangler 4.132.0 printing the answers (a loopback stand-in answers its few requests)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from reservation_lab.cloudflare_double.envelope import Answer, error, ok
from reservation_lab.cloudflare_double.validation import (
    EMAIL_VERIFICATION_DOCS,
    check_upload,
    exported_names,
    strip_comments,
    unverified_email_answer,
)
from reservation_lab.domain.config import CLASS_NAME, cleanup_config, wrangler_config
from reservation_lab.errors import ToolchainError
from reservation_lab.paths import WORKER_SRC
from reservation_lab.runtime.toolchain import find_toolchain

NAME = "labex-c10-o03-0123456789ab"
ACCOUNT = "0123456789abcdef0123456789abcdef"
INDEX = (WORKER_SRC / "index.js").read_bytes()
CLEANUP = (WORKER_SRC / "cleanup.js").read_bytes()
MAIN_EXPORTS = wrangler_config(NAME)["exports"]  # {"WorkshopReservations": {type durable-object, storage sqlite}}
TOMBSTONE_EXPORTS = cleanup_config(NAME)["exports"]  # {"WorkshopReservations": {type durable-object, state deleted}}
STILL_EXPORTING = CLEANUP + b"\nexport class WorkshopReservations {}\n"
ESBUILD_TAIL = b"var WorkshopReservations = class {};\nvar index_default = {};\nexport {\n  WorkshopReservations,\n" \
               b"  index_default as default\n};\n//# sourceMappingURL=index.js.map\n"


def upload(exports: dict[str, Any], main: str, code: bytes, **extra: Any) -> tuple[dict[str, Any], dict[str, bytes]]:
    """metadata and modules as wrangler sends them (cli.js:156324: main_module names the module part)."""
    return {"main_module": main, "compatibility_date": "2026-09-18", "exports": exports, **extra}, {main: code}


def details(answer: Answer | None) -> list[tuple[str, str]]:
    """(scenario, class) of a 100402 answer, after checking its envelope (api-schemas
    workers_exports_reconciliation_error_response) and that wrangler would render it (cli.js:157087)."""
    assert answer is not None
    status, body = answer
    assert status == 400 and body["success"] is False and body["result"] is None and body["messages"] == []
    (first,) = body["errors"]
    assert first["code"] == 100402 and first["message"].startswith("Durable Object exports reconciliation failed:")
    listed = first["meta"]["details"]
    assert [d["class"] for d in listed] == sorted(d["class"] for d in listed)
    for detail in listed:
        assert {"class", "scenario", "message"} <= set(detail) <= {"class", "scenario", "message", "suggestion",
                                                                    "referencing_scripts", "namespace_id"}
        assert all(isinstance(detail[key], str) for key in ("class", "scenario", "message"))
    return [(d["scenario"], d["class"]) for d in listed]


# --- which names a module exports ---------------------------------------------------------------------------------

def test_the_lab_sources_export_exactly_their_classes() -> None:
    assert exported_names("index.js", {"index.js": INDEX}) == {CLASS_NAME}
    assert exported_names("cleanup.js", {"cleanup.js": CLEANUP}) == set()
    assert exported_names("index.js", {"index.js": ESBUILD_TAIL}) == {CLASS_NAME}  # wrangler's bundle ends so


@pytest.mark.parametrize(("code", "names"), [
    ("export class A extends DurableObject {}", {"A"}),
    ("class A {}\nexport { A };", {"A"}),
    ("class Inner {}\nexport { Inner as A, other as default };", {"A"}),
    ("export default class A {}", set()),
    ("export const A = class {};\nexport let B = 1;", {"A", "B"}),
    ("// export class A {}\n/* export class B {}\n*/ export default {};", set()),
    ("const s = 'export class A {}'; const t = `x ${`export { B }`} y`;", set()),
    ("const url = 'https://x.test/'; export class A {}", {"A"}),
    ("const r = /^\\/w\\/([^/]+)\\/(a|b)$/; /* export class B */ export class A {}", {"A"}),
    ("const half = total / 2; const third = n / 3; export { A };", {"A"}),
    ("export * from './objects.js';", {"Moved"}),
])
def test_exported_names_reads_es_module_exports_as_learners_and_esbuild_write_them(code: str, names: set[str]
                                                                                     ) -> None:
    modules = {"index.js": code.encode(), "objects.js": b"export class Moved {}"}
    assert exported_names("index.js", modules) == names


def test_comments_go_but_strings_stay() -> None:
    assert strip_comments("a = 'http://x'; // gone\nb /* gone */ = 1;") == "a = 'http://x'; \nb   = 1;"


# --- the lab's real uploads pass --------------------------------------------------------------------------------------

@pytest.mark.parametrize("existing", [set(), {CLASS_NAME}])
def test_the_lab_deploy_passes_first_time_and_again(existing: set[str]) -> None:
    assert check_upload(*upload(MAIN_EXPORTS, "index.js", INDEX), existing) is None
    assert check_upload(*upload(MAIN_EXPORTS, "index.js", ESBUILD_TAIL), existing) is None


@pytest.mark.parametrize("existing", [{CLASS_NAME}, set()])  # set(): the namespace is gone (a stale tombstone)
def test_the_lab_cleanup_deploy_passes(existing: set[str]) -> None:
    assert check_upload(*upload(TOMBSTONE_EXPORTS, "cleanup.js", CLEANUP), existing) is None


def test_an_upload_without_exports_is_not_reconciled() -> None:
    assert check_upload({"main_module": "index.js"}, {"index.js": INDEX}) is None
    legacy = {"main_module": "index.js", "migrations": {"new_tag": "v1", "new_sqlite_classes": [CLASS_NAME]}}
    assert check_upload(legacy, {"index.js": INDEX}, {CLASS_NAME}) is None


# --- (c), (d) and the other reconciliation scenarios fail -------------------------------------------------------------

RENAMED = INDEX.replace(b"export class WorkshopReservations", b"export class WorkshopReservationsV2")


def test_a_renamed_class_fails_config_export_not_in_code_once_its_namespace_exists() -> None:
    assert details(check_upload(*upload(MAIN_EXPORTS, "index.js", RENAMED), {CLASS_NAME})) == [
        ("config_export_not_in_code", CLASS_NAME)]
    assert details(check_upload(*upload(MAIN_EXPORTS, "index.js", RENAMED))) == [  # first deploy: nothing provisioned
        ("config_references_nonexistent_class", CLASS_NAME)]


def test_a_class_exported_only_by_default_is_not_exported_by_name() -> None:
    code = INDEX.replace(b"export class WorkshopReservations", b"export default class WorkshopReservations")
    code = code.replace(b"export default createFrontWorker", b"const front = createFrontWorker")
    assert details(check_upload(*upload(MAIN_EXPORTS, "index.js", code), {CLASS_NAME})) == [
        ("config_export_not_in_code", CLASS_NAME)]


def test_a_cleanup_that_still_exports_the_class_fails_tombstone_delete_class_still_in_code() -> None:
    answer = check_upload(*upload(TOMBSTONE_EXPORTS, "cleanup.js", STILL_EXPORTING), {CLASS_NAME})
    assert details(answer) == [("tombstone_delete_class_still_in_code", CLASS_NAME)]
    assert answer is not None and "still exported in code" in answer[1]["errors"][0]["meta"]["details"][0]["message"]
    commented = CLEANUP + b"\n// export class WorkshopReservations {}\n"  # a comment exports nothing
    assert check_upload(*upload(TOMBSTONE_EXPORTS, "cleanup.js", commented), {CLASS_NAME}) is None


def test_namespaces_the_upload_no_longer_declares_fail() -> None:
    others = {"Old": {"type": "durable-object", "state": "deleted"}, **MAIN_EXPORTS}
    assert check_upload(*upload(others, "index.js", INDEX), {CLASS_NAME, "Old"}) is None  # declared: a tombstone
    answer = check_upload(*upload(MAIN_EXPORTS, "index.js", INDEX + b"export class Kept {}"),
                          {CLASS_NAME, "Kept", "Orphan"})
    assert details(answer) == [("provisioned_class_missing_from_config", "Kept"),
                               ("orphaned_provisioned_namespace", "Orphan")]
    assert answer is not None and answer[1]["errors"][0]["meta"]["details"][1]["message"] == (
        "A namespace exists for 'Orphan' but no `exports` entry declares it.")  # the docs' own example text


def test_all_failing_classes_are_reported_together_sorted_by_class() -> None:
    exports = {"Zeta": {"type": "durable-object", "storage": "sqlite"}, **TOMBSTONE_EXPORTS}
    assert details(check_upload(*upload(exports, "cleanup.js", STILL_EXPORTING), {CLASS_NAME})) == [
        ("tombstone_delete_class_still_in_code", CLASS_NAME), ("config_references_nonexistent_class", "Zeta")]


# --- (a), (b): the shape of the upload ------------------------------------------------------------------------------

def test_exports_and_migrations_in_one_upload_fail() -> None:
    answer = check_upload(*upload(MAIN_EXPORTS, "index.js", INDEX, migrations={"new_tag": "v1"}))
    assert answer == error(400, 10021, "`migrations` and `exports` are mutually exclusive. Choose one or the other "
                           "to declare your Durable Object lifecycle, but not both.")


@pytest.mark.parametrize(("entry", "word"), [
    ({"type": "durable-object"}, "`storage` is required for state \"created\""),
    ({"type": "durable-object", "storage": "kv"}, "but got \"kv\""),
    ({"type": "durable-object", "state": "expecting-transfer", "transfer_from": "w"}, "required for state \"expe"),
    ({"type": "durable-object", "state": "deleted", "storage": "sqlite"}, "forbidden on state \"deleted\""),
    ({"type": "durable-object", "state": "gone"}, "unknown state \"gone\""),
])
def test_an_entry_of_the_wrong_shape_fails_before_any_reconciliation(entry: dict[str, str], word: str) -> None:
    answer = check_upload(*upload({CLASS_NAME: entry}, "index.js", INDEX), {CLASS_NAME})
    assert details(answer) == [("invalid_export", CLASS_NAME)]
    assert answer is not None and word in answer[1]["errors"][0]["meta"]["details"][0]["message"]


def test_worker_entrypoint_exports_are_not_durable_objects() -> None:
    assert check_upload(*upload({"default": {"type": "worker"}, **MAIN_EXPORTS}, "index.js", INDEX)) is None


def test_legacy_kv_is_refused_for_a_new_namespace_only() -> None:
    kv = {CLASS_NAME: {"type": "durable-object", "storage": "legacy-kv"}}
    assert details(check_upload(*upload(kv, "index.js", INDEX))) == [("invalid_export", CLASS_NAME)]
    assert check_upload(*upload(kv, "index.js", INDEX), {CLASS_NAME}) is None


def test_an_unverified_account_is_told_to_verify_its_email() -> None:
    status, body = unverified_email_answer()
    assert status == 403 and body["success"] is False and body["result"] is None
    assert body["errors"] == [{"code": 10034, "documentation_url": EMAIL_VERIFICATION_DOCS, "message": (
        "You need to verify your email address to use Workers. For more information, read our documentation on "
        f"verifying your email address: {EMAIL_VERIFICATION_DOCS}")}]


# --- the real wrangler prints the answers ---------------------------------------------------------------------------

@dataclass
class StandIn:
    """The requests `wrangler deploy` makes up to its upload, answered as api.py's handlers answer them."""

    existing: set[str] = field(default_factory=set)
    email_verified: bool = True
    uploads: list[tuple[dict[str, Any], Answer | None]] = field(default_factory=list)

    def answer(self, method: str, path: str, content_type: str, body: bytes) -> Answer:
        if method == "PUT" and re.search(r"/workers/scripts/[^/]+$", path):  # cli.js:168040
            if not self.email_verified:
                return unverified_email_answer()
            metadata, modules = _parts(content_type, body)
            refused = check_upload(metadata, modules, self.existing)
            self.uploads.append((metadata, refused))
            return refused or ok({"id": NAME, "etag": "0" * 32, "deployment_id": "0" * 32})
        if path.endswith("/workers/subdomain"):  # cli.js:152028
            return ok({"subdomain": "lab-learner"})
        if re.search(r"/workers/services/[^/]+$", path):  # cli.js:151160: 10090 means a first deploy
            return error(404, 10090, "This Worker does not exist on your account.")
        return error(404, 10007, f"This Worker does not exist on your account. [name: {NAME}]")  # deployments, settings


def _parts(content_type: str, body: bytes) -> tuple[dict[str, Any], dict[str, bytes]]:
    message = BytesParser(policy=HTTP).parsebytes(f"content-type: {content_type}\r\n\r\n".encode() + body)
    parts = {str(p.get_param("name", header="content-disposition")): p.get_payload(decode=True) or b""
             for p in message.iter_parts()}
    return json.loads(parts.pop("metadata")), parts


@pytest.fixture
def stand_in() -> Iterator[tuple[StandIn, str]]:
    state = StandIn()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            status, payload = state.answer(self.command, self.path.split("?")[0],
                                           self.headers.get("content-type", ""), body)
            content = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _serve

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield state, f"http://127.0.0.1:{server.server_address[1]}/client/v4"
    server.shutdown()
    server.server_close()


def wrangler_deploy(folder: Path, config: dict[str, Any], api: str) -> str:
    """`wrangler deploy -c <config>` in `folder` against the stand-in; what it printed, without colours."""
    try:
        toolchain = find_toolchain()
    except ToolchainError as missing:
        pytest.skip(f"no Node 22 / pinned wrangler here: {missing}")
    (folder / "deploy.jsonc").write_text(json.dumps({**config, "account_id": ACCOUNT}))
    home = folder / "home"
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "CLOUDFLARE_API_TOKEN": "stand-in-token", "CLOUDFLARE_API_BASE_URL": api, "CI": "true",
           "WRANGLER_SEND_METRICS": "false", "DO_NOT_TRACK": "1", "CLOUDFLARE_CF_FETCH_ENABLED": "false",
           "WRANGLER_HIDE_BANNER": "true", "WRANGLER_WRITE_LOGS": "false", "NO_COLOR": "1", "FORCE_COLOR": "0"}
    done = subprocess.run(toolchain.wrangler_argv("deploy", "-c", "deploy.jsonc"), cwd=folder, env=env,
                          capture_output=True, text=True, timeout=180)
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)


@pytest.fixture
def worker_copy(tmp_path: Path) -> Path:
    shutil.copytree(WORKER_SRC, tmp_path / "src")
    return tmp_path


def test_wrangler_uploads_of_the_lab_pass(stand_in: tuple[StandIn, str], worker_copy: Path) -> None:
    state, api = stand_in
    wrangler_deploy(worker_copy, wrangler_config(NAME), api)  # after the upload it stops at a route not stood in
    state.existing = {CLASS_NAME}
    wrangler_deploy(worker_copy, cleanup_config(NAME), api)
    assert [(meta["main_module"], meta["exports"], refused) for meta, refused in state.uploads] == [
        ("index.js", MAIN_EXPORTS, None), ("cleanup.js", TOMBSTONE_EXPORTS, None)]


def test_wrangler_prints_each_refused_class(stand_in: tuple[StandIn, str], worker_copy: Path) -> None:
    state, api = stand_in
    state.existing = {CLASS_NAME}
    (worker_copy / "src" / "cleanup.js").write_bytes(STILL_EXPORTING)
    printed = wrangler_deploy(worker_copy, cleanup_config(NAME), api)
    assert (  # cli.js:157070 renderExportsReconciliationError, logged by cli.js:356332 as one ✘ [ERROR] block
        "✘ [ERROR] Durable Object exports reconciliation failed:\n\n"
        f"    ✘ [tombstone_delete_class_still_in_code] class '{CLASS_NAME}': The `deleted` tombstone for "
        f"'{CLASS_NAME}' names a class that is still exported in code.\n"
        f"        Suggestion: Remove the class '{CLASS_NAME}' from your code first, then deploy the tombstone.\n"
    ) in printed, printed
    assert "Uploaded" not in printed


def test_wrangler_prints_the_unverified_email_answer(stand_in: tuple[StandIn, str], worker_copy: Path) -> None:
    state, api = stand_in
    state.email_verified = False
    printed = wrangler_deploy(worker_copy, wrangler_config(NAME), api)
    assert f"✘ [ERROR] A request to the Cloudflare API (/accounts/{ACCOUNT}/workers/scripts/{NAME}) failed." in printed
    flat = " ".join(printed.split())  # esbuild wraps the notes at the terminal's width
    assert ("You need to verify your email address to use Workers. For more information, read our documentation on "
            f"verifying your email address: {EMAIL_VERIFICATION_DOCS} [code: 10034]") in flat, printed
    assert f"To learn more about this error, visit: {EMAIL_VERIFICATION_DOCS}" in flat
