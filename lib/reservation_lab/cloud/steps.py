"""Cloud steps 5–7 with the pinned wrangler: login, whoami, deploy, readiness, verify, delete, logout.

Account IDs, e-mails and tokens stay in variables: nothing here prints them.
"""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from reservation_lab.cloud.accounts import Identity, parse_whoami
from reservation_lab.cloud.api import CloudflareAPI, parse_auth_token, token_from_env
from reservation_lab.cloud.verify import MODES, Verdict, VerificationFailed, verify_deleted, verify_deployed
from reservation_lab.domain.config import CLASS_NAME, check_run_name, read_config
from reservation_lab.domain.facts import BURST_SIZE, CAPACITY
from reservation_lab.domain.routes import status_path
from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import LabError, WranglerError
from reservation_lab.i18n import Message, describe, quoted
from reservation_lab.paths import REPO_ROOT
from reservation_lab.runtime.commands import announce, relative_args, shown_folder
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.http import client_options
from reservation_lab.runtime.redact import redact, strip_ansi
from reservation_lab.runtime.waiting import wait_until
from reservation_lab.runtime.wrangler import (
    STDOUT,
    Echo,
    WranglerResult,
    capture_wrangler,
    echo_stream,
    failure,
    run_wrangler,
)

REHEARSAL_ENV = "RESERVATION_LAB_REHEARSAL"  # set by the course's rehearsal while the double stands in
CLEANED = "verified-deleted"  # logs/ marker: the verifier proved this run's Worker and namespaces gone
REHEARSED = "rehearsal"  # logs/ marker: this run deployed to the rehearsal's double (gone with its kernel)
UPLOADED = "may-be-deployed"  # logs/ marker: a deploy of this run may have uploaded a Worker (see deploy())
LOGIN_TIMEOUT = 15 * 60
DEPLOY_TIMEOUT = 10 * 60
WORKERS_DEV = re.compile(r"https://[a-z0-9.-]+\.workers\.dev")
DELETED = re.compile(rf"Deleted\b[^\n]*\b{CLASS_NAME}\b")
STALE_TOMBSTONE = re.compile(rf"\[stale_tombstone\]\s+{CLASS_NAME}\b")  # the namespace is already gone
DELETE_PROMPT = re.compile(r"Are you sure you want to delete (\S+)\? ")
NO_SUBDOMAIN = "register a workers.dev subdomain"  # wrangler's error when the account has none (cli.js:152092)
EMAIL_UNVERIFIED = ("verify your email address", "verify your account's email address", "[code: 10034]")  # 10034:
    # Cloudflare's text as wrangler prints it (workers-sdk #15641), its older rewrite (cli.js:55919), the code line
EXPORTS_REJECTED = "Durable Object exports reconciliation failed"  # cli.js:157070 renderExportsReconciliationError
NOT_EXPORTED = "Durable Objects, which are not exported in your entrypoint file"  # cli.js:178705
REJECTED_CLASS = re.compile(r"✘ \[(\w+)\] class '([^']*)': ([^\n]*)")  # one line a class (cli.js:157075)
NOT_LOGGED_IN = ("not logged in. could not authenticate",  # cli.js:134063 requireLoggedIn (lower-cased here)
                 "non-interactive environment, it's necessary to set a cloudflare_api_token")  # cli.js:127797
UPLOADED_LINES = ("Uploaded ", "Worker Version ID:")  # printed once the upload went through (cli.js deploy)
EMAIL_UNVERIFIED_CODE = 10034  # workers.api.error.email_verification_required (workers-sdk #11394, #15641)

LOGIN_SCOPES = ("account:read", "user:read", "workers:write", "workers_scripts:write")  # wrangler adds offline_access
                                                                                        # (cli.js:124155)


@dataclass(frozen=True)
class Deployment:
    """What a deploy produced: the Worker URL and the version ID (if wrangler reported them)."""

    url: str | None
    version_id: str | None = None


def deployment_from_ndjson(text: str) -> Deployment | None:
    """The last `{"type": "deploy", ...}` entry of a WRANGLER_OUTPUT_FILE_PATH file, or None."""
    entry: dict[str, Any] | None = None
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and item.get("type") == "deploy":
            entry = item
    if entry is None:
        return None
    targets = [str(t) for t in entry.get("targets") or []]
    url = next((m.group(0) for t in targets if (m := WORKERS_DEV.fullmatch(t.strip().rstrip("/")))), None)
    return Deployment(url=url, version_id=entry.get("version_id"))


def url_from_text(printed: str) -> str | None:
    """The last https://….workers.dev URL in wrangler's printed output (the seeds' grep | tail -1)."""
    found = WORKERS_DEV.findall(strip_ansi(printed))
    return found[-1] if found else None


def parse_deployment(ndjson: str, printed: str, required: bool = True) -> Deployment:
    """The deployment from the ND-JSON entry, the URL falling back to the printed text."""
    entry = deployment_from_ndjson(ndjson) or Deployment(url=None)
    url = entry.url or url_from_text(printed)
    if required and not url:
        raise LabError("cloud.no_workers_dev")
    return Deployment(url=url, version_id=entry.version_id)


def reports_deletion(printed: str) -> bool:
    """Whether the cleanup deploy's reconciliation reported `Deleted: WorkshopReservations`."""
    return DELETED.search(strip_ansi(printed)) is not None


def reports_stale_tombstone(printed: str) -> bool:
    """Whether Cloudflare called the tombstone stale: no WorkshopReservations namespace exists (any more)."""
    return STALE_TOMBSTONE.search(strip_ansi(printed)) is not None


def _failure_code(ndjson: str) -> int | None:
    """The `code` of wrangler's ND-JSON `command-failed` entry (cli.js:224127), if any."""
    for line in reversed(ndjson.splitlines()):
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and item.get("type") == "command-failed":
            return item.get("code") if isinstance(item.get("code"), int) else None
    return None


def _rejections(text: str) -> str:
    """Cloudflare's per-class reasons of a rejected exports reconciliation: `[scenario] class 'X': message`."""
    found = REJECTED_CLASS.findall(strip_ansi(text))
    return " ".join(f"[{scenario}] {name}: {reason.strip()}" for scenario, name, reason in found) or "–"


def _nothing_uploaded(text: str, ndjson: str) -> str | None:
    """The catalog key of a failure that stopped wrangler before anything was uploaded, or None (it may have).
    `text` is what wrangler printed (redacted), `ndjson` its output file. Once wrangler printed that the upload went
    through, nothing counts as "nothing uploaded" (an existing Worker's subdomain step comes after its upload)."""
    if any(line in text for line in UPLOADED_LINES):
        return None
    if NO_SUBDOMAIN in text:
        return "cloud.no_subdomain"
    if any(words in text for words in EMAIL_UNVERIFIED) or _failure_code(ndjson) == EMAIL_UNVERIFIED_CODE:
        return "cloud.email_unverified"
    if EXPORTS_REJECTED in text:  # Cloudflare refused the upload as a whole (code 100402): nothing changed
        return "cloud.exports_rejected"
    if NOT_EXPORTED in text:  # wrangler's own check before the upload
        return "cloud.class_not_exported"
    if any(words in text.lower() for words in NOT_LOGGED_IN):
        return "cloud.not_logged_in"
    return None


def _say(echo: Echo, line: str) -> None:
    """One line of ours to `echo` (see runtime.wrangler.echo_stream)."""
    stream = echo_stream(echo)
    if stream is not None:
        stream.write(line + "\n")
        stream.flush()


def _capture(run: RunFolder, *args: str, shown: bool = True, ctx: Context = QUIET) -> WranglerResult:
    return capture_wrangler(*args, cwd=run.root, log_dir=run.logs_dir, shown=shown, ctx=ctx)


def _failure(args: tuple[str, ...], code: int, stderr: str, key: str = "errors.wrangler_failed") -> Message:
    return failure(args, code, redact(strip_ansi(stderr)).splitlines(keepends=True), key)


def login(run: RunFolder, echo: Echo = STDOUT, ctx: Context = QUIET) -> None:
    """Device authorization: wrangler prints a URL and a code, then waits until you confirm in the browser (at most
    5 minutes). Only the scopes the lab uses are asked for (LOGIN_SCOPES), not wrangler's ~27 defaults.

    With CLOUDFLARE_API_TOKEN set, wrangler uses that token and `login` does nothing (exit 0): say so first.
    """
    if token_from_env(ctx.cloud):
        _say(echo, ctx.say("cloud.token_env", command="login"))
    run_wrangler("login", "--device", "--browser=false", "--scopes", *LOGIN_SCOPES, cwd=run.root,
                 log_dir=run.logs_dir, timeout=LOGIN_TIMEOUT, echo=echo, ctx=ctx)


def whoami(run: RunFolder, ctx: Context = QUIET) -> Identity:
    """`wrangler whoami --json`, parsed without printing anything."""
    result = _capture(run, "whoami", "--json", ctx=ctx)
    try:
        return parse_whoami(result.output, ctx.language)
    except LabError:
        raise WranglerError(_failure(result.args, result.returncode, result.errors)) from None


def logout(run: RunFolder, echo: Echo = STDOUT, ctx: Context = QUIET) -> None:
    """`wrangler logout`: revoke this machine's authorization (nothing to revoke while CLOUDFLARE_API_TOKEN is set)."""
    if token_from_env(ctx.cloud):
        _say(echo, ctx.say("cloud.token_env", command="logout"))
    run_wrangler("logout", cwd=run.root, log_dir=run.logs_dir, echo=echo, ctx=ctx)


def api_token(run: RunFolder, ctx: Context = QUIET) -> str:
    """CLOUDFLARE_API_TOKEN, else the token of wrangler's login (`wrangler auth token --json`); never printed."""
    token = token_from_env(ctx.cloud)
    if token:
        return token
    result = _capture(run, "auth", "token", "--json", shown=False, ctx=ctx)
    if not result.ok:
        raise LabError(_failure(result.args, result.returncode, result.errors, key="cloud.token_failed"))
    return parse_auth_token(result.output)


def cleanup_config_checked(run: RunFolder) -> Path:
    """The cleanup config, if the run name is a lab name and the config names exactly this Worker."""
    check_run_name(run.name)
    path = run.cleanup_config
    if not path.exists():
        raise LabError("cloud.cleanup_config_missing", name=path.name)
    try:
        name = read_config(path).get("name")
    except LabError:
        raise LabError("cloud.cleanup_config_not_json", name=path.name) from None
    if name != run.name:
        raise LabError("cloud.cleanup_config_other_worker", name=path.name, found=quoted(name), run=quoted(run.name))
    return path


def _numbered_outputs(run: RunFolder, stem: str) -> list[tuple[int, Path]]:
    """The run's `<stem>-<n>.ndjson` deploy outputs (wrangler's ND-JSON), newest first."""
    found = [(int(p.stem.rsplit("-", 1)[1]), p) for p in run.logs_dir.glob(f"{stem}-*.ndjson")
             if p.stem.rsplit("-", 1)[1].isdigit()]
    return sorted(found, reverse=True)


def _output_file(run: RunFolder, stem: str) -> Path:
    newest = _numbered_outputs(run, stem)
    return run.logs_dir / f"{stem}-{newest[0][0] + 1 if newest else 1}.ndjson"


def deploy(run: RunFolder, cleanup: bool = False, echo: Echo = STDOUT, ctx: Context = QUIET) -> Deployment:
    """`wrangler deploy` of the run's config (or the cleanup config); the URL comes from wrangler's ND-JSON output.

    What the run may have left in the account is tracked in logs/: a deploy leaves `may-be-deployed` (and forgets
    an earlier `verified-deleted`; on a real account, the `rehearsal` marker) unless it failed for a reason that
    uploads nothing (no workers.dev subdomain, an unverified e-mail, no login, a refused upload); those failures say
    so in the learner's words. An interrupted deploy counts as uploaded. The ND-JSON file is kept with e-mails and
    account IDs hidden (wrangler writes its error text there as it is).
    """
    config = cleanup_config_checked(run) if cleanup else run.config
    if not config.exists():
        raise LabError("cloud.config_missing", name=config.name)
    output = _output_file(run, "cleanup-deploy" if cleanup else "deploy")
    try:
        result = run_wrangler("deploy", "--config", str(config), cwd=run.root, log_dir=run.logs_dir,
                              timeout=DEPLOY_TIMEOUT, echo=echo, check=False, ctx=ctx,
                              extra_env={"WRANGLER_OUTPUT_FILE_PATH": str(output)})
    except BaseException:  # a timeout or an interrupt, perhaps after the upload: count it as deployed
        _mark_uploaded(run, cleanup, ctx)
        _redacted_output(output)
        raise
    if not result.ok:
        cause = _nothing_uploaded(result.output, _redacted_output(output))
        if cause is not None:
            raise LabError(cause, folder=shown_folder(run.root), details=_rejections(result.output))
        _mark_uploaded(run, cleanup, ctx)
        raise WranglerError(failure(result.args, result.returncode, result.output.splitlines(keepends=True)))
    _mark_uploaded(run, cleanup, ctx)
    ndjson = _redacted_output(output)
    if cleanup and reports_stale_tombstone(result.output):
        _say(echo, ctx.say("cloud.already_deleted", class_name=CLASS_NAME))
    elif cleanup and not reports_deletion(result.output):
        raise LabError("cloud.not_deleted", class_name=CLASS_NAME)
    return parse_deployment(ndjson, result.output, required=not cleanup)


def _mark_uploaded(run: RunFolder, cleanup: bool, ctx: Context) -> None:
    """A deploy may have uploaded: the run may be left deployed again (an earlier proof of deletion no longer holds),
    on the rehearsal's double or, once a real deploy followed, on the learner's account."""
    (run.logs_dir / UPLOADED).touch()
    if not cleanup:
        (run.logs_dir / CLEANED).unlink(missing_ok=True)
    rehearsal = run.logs_dir / REHEARSED
    if ctx.cloud.get(REHEARSAL_ENV):
        rehearsal.touch()
    else:
        rehearsal.unlink(missing_ok=True)


def _redacted_output(path: Path) -> str:
    """wrangler's ND-JSON output, rewritten with e-mails, IDs and tokens hidden; "" if it wrote none."""
    if not path.exists():
        return ""
    text = redact(path.read_text())
    path.write_text(text)
    return text


def last_deployment_url(run: RunFolder) -> str:
    """The Worker URL of the run's most recent (non-cleanup) deploy."""
    for _, path in _numbered_outputs(run, "deploy"):
        url = parse_deployment(path.read_text(), "", required=False).url
        if url:
            return url
    raise LabError("cloud.no_deploy_url", folder=run.logs_dir)


def _probe(http: httpx.Client, url: str, timeout: float) -> tuple[bool, str | Message]:
    try:
        response = http.get(url, timeout=timeout)
    except httpx.TransportError as exc:
        return False, Message("cloud.probe_no_answer", {"error": type(exc).__name__})
    try:
        body = response.json()
    except ValueError:
        return False, Message("cloud.probe_not_json", {"code": response.status_code})
    fresh = isinstance(body, dict) and body.get("capacity") == CAPACITY and body.get("reserved") == 0
    return response.status_code == 200 and fresh, f"HTTP {response.status_code} {json.dumps(body)[:200]}"


def wait_until_ready(app_url: str, timeout: float = 30, settle: float = 5, client: httpx.Client | None = None,
                     interval: float = 1.0, workshop: str = "readiness", echo: Echo = STDOUT,
                     ctx: Context = QUIET) -> None:
    """Poll a real object until it answers capacity 4, reserved 0 (runtime.waiting.wait_until); then wait `settle`
    seconds. While it waits, one progress line (updated in place) says how long and what it last saw."""
    url = app_url.rstrip("/") + status_path(workshop)
    http = client or httpx.Client(**client_options(url, cloud=ctx.cloud))
    stream = echo_stream(echo)
    started = time.monotonic()
    last: list[str | Message] = [Message("cloud.probe_no_answer", {"error": "-"})]

    def ready() -> bool:
        answered, last[0] = _probe(http, url, timeout=max(0.5, min(5.0, started + timeout - time.monotonic())))
        if stream is not None:
            shown = describe(last[0], ctx.language) if isinstance(last[0], Message) else last[0][:60]
            stream.write("\r" + ctx.say("cloud.waiting_for", url=url, seconds=time.monotonic() - started,
                                         seen=ctx.say("cloud.ready") if answered else shown))
            stream.flush()
        return answered

    try:
        if not wait_until(ready, timeout, interval=interval):
            raise LabError("cloud.not_ready", url=url, capacity=CAPACITY, seconds=round(timeout), seen=last[0])
    finally:
        if client is None:
            http.close()
    _say(echo, "\n" + ctx.say("cloud.settling", seconds=round(settle)))
    time.sleep(settle)


def delete_worker(run: RunFolder, echo: Echo = STDOUT, ctx: Context = QUIET) -> None:
    """`wrangler delete` of exactly this run's Worker, named by the checked cleanup config.

    No `--force`: wrangler asks "Are you sure you want to delete <name>?" (answered yes when it runs
    non-interactively, as here). Whether Cloudflare refuses a plain delete while the Worker's own namespace
    remains is not confirmed (wrangler skips a Worker's own namespaces in its dependency check, cli.js:228119; the
    API's `force` text reads the other way); the double assumes it refuses. Either way the tombstone deploy removes
    the namespace first and `verify deleted` is the proof.
    """
    config = cleanup_config_checked(run)
    result = run_wrangler("delete", "--config", str(config), cwd=run.root, log_dir=run.logs_dir,
                          echo=echo, ctx=ctx)
    asked = DELETE_PROMPT.findall(result.output)
    if asked != [run.name] or f"Successfully deleted {run.name}" not in result.output:
        raise LabError("cloud.delete_unconfirmed", name=run.name)


def config_account_id(run: RunFolder) -> str:
    """The account ID the run's configs were written with (read from the file, never shown)."""
    for path in (run.config, run.cleanup_config):
        if path.exists():
            account = read_config(path).get("account_id")
            if account:
                return str(account)
    raise LabError("cloud.no_account_id")


def verifier_words(run: RunFolder, mode: str, app_url: str | None, burst_size: int) -> list[str]:
    """The verifier as a learner runs it from the repository root (the seeds' `python3 .labex/verify.py …`)."""
    words = [*relative_args([sys.executable], REPO_ROOT), "-m", "reservation_lab", "verify", mode,
             "--workdir", shown_folder(run.root)]
    if mode == "deployed":
        words += (["--app-url", app_url] if app_url else []) + ["--burst-size", str(burst_size)]
    return words


def verify(run: RunFolder, mode: str, account_id: str | None = None, app_url: str | None = None,
           burst_size: int = BURST_SIZE, *, token: str | None = None, transport: httpx.BaseTransport | None = None,
           attempts: int = 3, delay: float = 3.0, ctx: Context = QUIET) -> Verdict:
    """The independent verifier; prints what it proved and PASS, or raises VerificationFailed naming the problems."""
    if mode not in MODES:
        raise LabError("cloud.verify_mode", modes=", ".join(MODES), mode=quoted(mode))
    script = check_run_name(run.name)
    announce(REPO_ROOT, verifier_words(run, mode, app_url, burst_size), cloud=True, ctx=ctx)
    account_id = account_id or config_account_id(run)
    with CloudflareAPI(token or api_token(run, ctx), account_id, transport=transport, cloud=ctx.cloud) as api:
        if mode == "deployed":
            verdict = verify_deployed(api, script, app_url or last_deployment_url(run), burst_size, cloud=ctx.cloud)
        else:
            verdict = verify_deleted(api, script, attempts=attempts, delay=delay)
    for proved in verdict.proved:
        print(ctx.say("cloud.verified", what=proved))
    if not verdict.passed:
        raise VerificationFailed(verdict.outcome())
    print(describe(verdict.outcome(), ctx.language))
    if mode == "deleted":
        (run.logs_dir / CLEANED).touch()
    return verdict
