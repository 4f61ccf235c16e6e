"""The independent verifier (the seeds' `.labex/verify.py deployed|deleted`) as checks that return a Verdict.

deployed: the WORKSHOPS binding, the SQLite namespace, the cloud-launch totals and a fresh 12-request burst.
deleted: the Worker answers "not found" (10007) and none of its namespaces remains. Any API, network or
auth failure makes the verdict FAIL; only checks that ran and passed make a PASS.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx

from reservation_lab.cloud.api import APIError, CloudflareAPI, is_not_found
from reservation_lab.domain.burst import send_burst_sync
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.config import BINDING, CLASS_NAME
from reservation_lab.domain.decisions import Decision
from reservation_lab.domain.facts import BURST_SIZE
from reservation_lab.domain.invariants import check_burst, durable_view, expected_summary, expected_totals
from reservation_lab.errors import InvariantError, LabError
from reservation_lab.i18n import REFERENCE, Message, describe, plural, quoted
from reservation_lab.runtime.cloud_env import REAL, CloudEnvironment
from reservation_lab.runtime.redact import redact

MODES = ("deployed", "deleted")
CLOUD_WORKSHOP = "cloud-launch"
VERIFY_BURST = 12
BINDING_TYPE = "durable_object_namespace"


class CheckFailed(LabError):
    """One verifier check found something wrong."""


class VerificationFailed(LabError):
    """The verdict was FAIL; the message lists every problem."""


@dataclass
class Verdict:
    """The outcome: PASS only if every check ran and passed. Kept as catalog messages (`found`, `proved`);
    `problems`, `checks` and `summary()` are their English texts, for logs and scripts."""

    mode: str
    passed: bool
    found: list[Message] = field(default_factory=list)
    proved: list[Message] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [describe(problem, REFERENCE) for problem in self.found]

    @property
    def checks(self) -> list[str]:
        return [describe(check, REFERENCE) for check in self.proved]

    def outcome(self) -> Message:
        """PASS: <mode>, or FAIL: <mode>: <every problem>, as one message."""
        if self.passed:
            return Message("verify.pass", {"mode": self.mode})
        return Message("verify.fail", {"mode": self.mode, "problems": self.found})

    def summary(self, language: str = REFERENCE) -> str:
        return describe(self.outcome(), language)


Check = tuple[Message, Callable[[], Message]]


def run_checks(mode: str, checks: list[Check]) -> Verdict:
    """Run every check (each returns what it proved or raises); collect the problems."""
    proved: list[Message] = []
    problems: list[Message] = []
    for label, check in checks:
        try:
            proved.append(check())
        except (LabError, InvariantError) as exc:
            problems.append(Message("verify.problem", {"label": label, "detail": exc.message}))
        except (httpx.HTTPError, RuntimeError, ValueError, KeyError, TypeError) as exc:
            detail = f"{type(exc).__name__}: {redact(str(exc))}"
            problems.append(Message("verify.problem", {"label": label, "detail": detail}))
    return Verdict(mode, passed=not problems and len(proved) == len(checks), found=problems, proved=proved)


def check_binding(api: CloudflareAPI, script: str) -> Message:
    """The script settings bind WORKSHOPS to this Worker's WorkshopReservations namespace."""
    bindings = [b for b in api.script_settings(script).get("bindings") or [] if isinstance(b, dict)]
    found = [b for b in bindings if b.get("name") == BINDING]
    if not found:
        names = ", ".join(str(b.get("name")) for b in bindings) or "–"
        raise CheckFailed("verify.binding_missing", binding=BINDING, names=names)
    binding = found[0]
    if binding.get("type") != BINDING_TYPE:
        raise CheckFailed("verify.binding_type", binding=BINDING, found=quoted(binding.get("type")),
                          expected=quoted(BINDING_TYPE))
    if binding.get("class_name") != CLASS_NAME:
        raise CheckFailed("verify.binding_class", binding=BINDING, found=quoted(binding.get("class_name")),
                          expected=quoted(CLASS_NAME))
    if binding.get("script_name") not in (None, "", script):
        raise CheckFailed("verify.binding_script", binding=BINDING, found=quoted(binding.get("script_name")))
    return Message("verify.binding_ok", {"binding": BINDING, "class_name": CLASS_NAME, "type": BINDING_TYPE})


def check_namespace(api: CloudflareAPI, script: str) -> Message:
    """A namespace of this Worker for WorkshopReservations exists, is SQLite-backed, and is the very namespace the
    WORKSHOPS binding points to (the binding's namespace_id is the namespace's id). Cloudflare's schema makes
    namespace_id optional on a binding (Python SDK `BindingWorkersBindingKindDurableObjectNamespace`): without it the
    namespace is joined by this Worker and class (the binding check proved the class), and the line says so."""
    namespaces = api.durable_object_namespaces()
    ours = [n for n in namespaces if n.get("script") == script and n.get("class") == CLASS_NAME]
    if not ours:
        raise CheckFailed(plural("verify.namespace_missing", len(namespaces), class_name=CLASS_NAME))
    if ours[0].get("use_sqlite") is not True:
        raise CheckFailed("verify.namespace_not_sql", class_name=CLASS_NAME, value=quoted(ours[0].get("use_sqlite")))
    bound = [b.get("namespace_id") for b in api.script_settings(script).get("bindings") or []
             if isinstance(b, dict) and b.get("name") == BINDING]
    name = ours[0].get("name") or CLASS_NAME
    if not bound:  # a missing binding is the binding check's problem
        return Message("verify.namespace_ok", {"name": name})
    if not all(isinstance(b, str) and b for b in bound):  # namespace_id is optional in Cloudflare's binding schema
        return Message("verify.namespace_ok_by_class", {"name": name, "binding": BINDING, "class_name": CLASS_NAME})
    if bound != [ours[0].get("id")]:
        raise CheckFailed("verify.namespace_not_bound", binding=BINDING, bound=", ".join(map(str, bound)),
                          id=ours[0].get("id"))
    return Message("verify.namespace_ok", {"name": name})


def check_cloud_launch(app_url: str, burst_size: int, cloud: CloudEnvironment = REAL) -> Message:
    """cloud-launch holds exactly the totals of step 5's burst."""
    with LabClient(app_url, cloud=cloud) as client:
        actual = durable_view(client.status(CLOUD_WORKSHOP))
    expected = expected_totals(burst_size)
    if actual != expected:
        raise CheckFailed(plural("verify.totals_after_burst", burst_size, workshop=CLOUD_WORKSHOP,
                                 actual=quoted(actual), expected=quoted(expected)))
    return Message("verify.totals_ok", {"workshop": CLOUD_WORKSHOP, "actual": quoted(actual)})


def _burst(app_url: str, workshop: str, size: int, cloud: CloudEnvironment) -> list[Decision]:
    """send_burst_sync in its own thread, so it also works inside a notebook's running event loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(send_burst_sync, app_url, workshop, size, prefix="verify-request", cloud=cloud).result()


def check_fresh_burst(app_url: str, workshop: str, size: int = VERIFY_BURST, cloud: CloudEnvironment = REAL) -> Message:
    """`size` concurrent one-seat requests to a new workshop: exactly capacity accepted, durable status agrees."""
    with LabClient(app_url, cloud=cloud) as client:
        before = client.status(workshop)
        if durable_view(before) != expected_totals(0):
            raise CheckFailed("verify.not_fresh", workshop=workshop, actual=quoted(durable_view(before)))
        decisions = _burst(app_url, workshop, size, cloud)
        after = client.status(workshop)
    summary = check_burst(decisions, before, after)
    if summary != expected_summary(size):
        raise CheckFailed("verify.summary", workshop=workshop, actual=quoted(summary.as_dict()),
                          expected=quoted(expected_summary(size).as_dict()))
    if durable_view(after) != expected_totals(size):
        raise CheckFailed("verify.totals", workshop=workshop, actual=quoted(durable_view(after)),
                          expected=quoted(expected_totals(size)))
    return plural("verify.burst_ok", size, **{"workshop": workshop, "accepted": summary.accepted,
                                       "rejected": summary.rejected})


def verify_deployed(api: CloudflareAPI, script: str, app_url: str, burst_size: int = BURST_SIZE,
                    workshop: str | None = None, cloud: CloudEnvironment = REAL) -> Verdict:
    """Every deployed-mode check, against the API (binding, namespace) and the Worker URL (reached from `cloud`)."""
    workshop = workshop or "verify-" + secrets.token_hex(4)
    return run_checks("deployed", [
        (Message("verify.label_binding"), lambda: check_binding(api, script)),
        (Message("verify.label_namespace"), lambda: check_namespace(api, script)),
        (Message("verify.label_cloud_launch"), lambda: check_cloud_launch(app_url, burst_size, cloud)),
        (Message("verify.label_burst"), lambda: check_fresh_burst(app_url, workshop, cloud=cloud)),
    ])


def check_script_gone(api: CloudflareAPI, script: str) -> Message:
    """The authenticated settings lookup answers 10007 (script not found)."""
    try:
        api.script_settings(script)
    except APIError as exc:
        if is_not_found(exc):
            return Message("verify.worker_gone")
        raise
    raise CheckFailed("verify.worker_exists")


def check_namespace_gone(api: CloudflareAPI, script: str) -> Message:
    """No Durable Object namespace of this Worker remains."""
    namespaces = api.durable_object_namespaces()
    left = sorted(str(n.get("class")) for n in namespaces if n.get("script") == script)
    if left:
        raise CheckFailed("verify.namespaces_left", classes=", ".join(left))
    return plural("verify.namespaces_gone", len(namespaces))


def verify_deleted(api: CloudflareAPI, script: str, attempts: int = 1, delay: float = 3.0) -> Verdict:
    """Every deleted-mode check; repeated up to `attempts` times while the deletion propagates."""
    verdict = Verdict("deleted", passed=False)
    for attempt in range(max(1, attempts)):
        if attempt:
            time.sleep(delay)
        verdict = run_checks("deleted", [
            (Message("verify.label_worker"), lambda: check_script_gone(api, script)),
            (Message("verify.label_namespace"), lambda: check_namespace_gone(api, script)),
        ])
        if verdict.passed:
            break
    return verdict
