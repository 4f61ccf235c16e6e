"""The v4 endpoints the pinned wrangler 4.132.0 and the verifier call, answered from `state`.

Each handler names where its request and response shape come from: `cli.js:<line>` is the pinned bundle
(worker/node_modules/wrangler/wrangler-dist/cli.js), `msw/<file>` wrangler's test handlers
(workers-sdk packages/wrangler/src/__tests__/helpers/msw/handlers/), `docs:exports` Cloudflare's Durable Objects
`exports` reference ("Reading the reconciliation output").
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from reservation_lab.cloudflare_double.envelope import Answer, error, ok, page
from reservation_lab.cloudflare_double.state import Account, Script, User, hex_id, now_iso
from reservation_lab.cloudflare_double.validation import check_upload, unverified_email_answer

SCRIPT_NOT_FOUND = 10007     # workers.api.error.script_not_found (cli.js: delete/verify treat it as "gone")
SERVICE_NOT_FOUND = 10090    # workers.api.error.service_not_found (cli.js:151160 catches it on a first deploy)
AUTH_ERROR = 10000           # "Authentication error" (Cloudflare's code for a bad or revoked bearer token)
WORKER_START_FAILED = 10021  # the upload's validation failed, e.g. the Worker throws at startup (cloudflare-docs
                             # #14880, Workers error codes: 10021; status 400 assumed); the double answers it when
                             # its workerd cannot start the uploaded Worker
NO_SUBDOMAIN = 10007         # GET /workers/subdomain on an account without one: "This account does not have a
                             # workers.dev subdomain" (cli.js:152028 reads code 10007 as "no subdomain")


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    @property
    def token(self) -> str | None:
        auth = self.headers.get("authorization", "")
        return auth[7:] if auth.startswith("Bearer ") else None

    def json(self) -> Any:
        return json.loads(self.body or b"null")


Handler = Callable[[Any, Request, re.Match[str]], Answer]  # a handler reads its account with `_account`
ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ROUTES.append((method, re.compile(pattern.replace("{account}", "(?P<account>[0-9a-f]{32})")
                                          .replace("{script}", "(?P<script>[a-z0-9-]+)") + "$"), handler))
        return handler
    return register


def dispatch(double: Any, request: Request) -> tuple[int, Any, dict[str, str]]:
    """Authenticate, apply a switched-on 429, then answer from the matching route (404 envelope if none).

    An account the login may not use (another user's, or one left out of the grant) is refused with 9109."""
    user: User = double.user
    with user.lock:
        if not user.authorized(request.token):
            return (*error(401 if request.token else 400, AUTH_ERROR, "Authentication error"), {})
        if user.faults.rate_limited > 0:
            user.faults.rate_limited -= 1
            return (*error(429, 971, "Please wait and consider throttling your request speed"),
                    {"retry-after": str(user.faults.retry_after)})
        for method, pattern, handler in ROUTES:
            match = pattern.match(request.path)
            if match and method == request.method:
                if "account" in match.groupdict() and user.account_by_id(match["account"]) is None:
                    return (*error(403, 9109, "Unauthorized to access requested resource"), {})
                return (*handler(double, request, match), {})
    return (*error(404, 7003, f"Could not route to {request.path}, perhaps your object identifier is invalid?"),
            {})


# --- who am I (cli.js:344171 whoami; msw/user.ts) ---------------------------------------------------------------

@route("GET", "/user/tokens/verify")
def verify_token(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # cli.js:344346 getTokenType: an API token verifies; Cloudflare SDK TokenVerifyResponse {id, status, expires_on}
    return ok({"id": hex_id(), "status": "active"})


@route("GET", "/user")
def user(double: Any, request: Request, match: re.Match[str]) -> Answer:
    user = double.user  # msw/user.ts mswSuccessUserHandlers (id, email, first/last name, …)
    return ok({"id": user.user_id, "email": user.email, "first_name": "Lab", "last_name": "Learner",
               "username": "lablearner", "two_factor_authentication_enabled": False, "suspended": False})


@route("GET", "/accounts")
def accounts(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # msw/user.ts getMswSuccessMembershipHandlers: [{name, id}]; only the accounts the login was granted
    return page([{"name": a.name, "id": a.id} for a in double.user.visible()], int(request.query.get("page", 1)),
                int(request.query.get("per_page", 50)))


@route("GET", "/memberships")
def memberships(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # msw/user.ts: [{id: "membership-id-1", account: {name, id}}]
    return page([{"id": "membership-" + a.id[:8], "account": {"name": a.name, "id": a.id},
                  "roles": ["Administrator"], "status": "accepted"} for a in double.user.visible()],
                int(request.query.get("page", 1)), int(request.query.get("per_page", 50)))


# --- deploy (cli.js:151160 service check, 152028 subdomain, 168040 upload, msw/script.ts) -----------------------

def _account(double: Any, match: re.Match[str]) -> Account:
    """The account the URL names (dispatch has checked that the login may use it)."""
    found = double.user.account_by_id(match["account"])
    assert found is not None
    return found


def _script(double: Any, match: re.Match[str]) -> Script | None:
    return _account(double, match).scripts.get(match["script"])


def _script_missing(name: str) -> Answer:
    return error(404, SCRIPT_NOT_FOUND, f"This Worker does not exist on your account. [name: {name}]")


@route("GET", "/accounts/{account}/workers/services/{script}")
def service(double: Any, request: Request, match: re.Match[str]) -> Answer:
    found = _script(double, match)
    if found is None:  # cli.js:151160: a 10090 means "first deploy", anything else is an error
        return error(404, SERVICE_NOT_FOUND, "This Worker does not exist on your account.")
    return ok({"id": found.name, "default_environment": {  # the fields the bundle reads at cli.js:151160
        "environment": "production", "created_on": found.created_on, "modified_on": found.modified_on,
        "script": {"id": found.name, "tag": found.tag, "etag": found.tag, "handlers": ["fetch"],
                   "last_deployed_from": "wrangler", "created_on": found.created_on,
                   "modified_on": found.modified_on}}})


@route("GET", "/accounts/{account}/workers/subdomain")
def account_subdomain(double: Any, request: Request, match: re.Match[str]) -> Answer:
    sub = _account(double, match).subdomain
    if sub is None:
        return error(404, NO_SUBDOMAIN, "This account does not have a workers.dev subdomain.")
    return ok({"subdomain": sub})  # Cloudflare SDK workers.subdomains.get: {subdomain}


@route("GET", "/accounts/{account}/workers/scripts/{script}/secrets")
def secrets(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # cli.js:164167 fetchSecrets; a 10007 means "no Worker yet" (cli.js:150967 WORKER_NOT_FOUND_ERR_CODE)
    return ok([]) if _script(double, match) else _script_missing(match["script"])


def parse_upload(request: Request) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The multipart form wrangler PUTs (cli.js createWorkerUploadForm): a `metadata` JSON part and one part a
    module (part name = module file name)."""
    head = f"content-type: {request.headers.get('content-type', '')}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + request.body)
    metadata: dict[str, Any] = {}
    modules: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        content = part.get_payload(decode=True) or b""
        if name == "metadata":
            metadata = json.loads(content)
        elif name:
            modules[str(name)] = content
    return metadata, modules


def reconcile(double: Any, account: Account, script: str, exports: dict[str, Any]) -> dict[str, Any]:
    """Apply the `exports` map to the account's namespaces; the result as the API reports it (docs:exports;
    cli.js:157016 renderExportsReconciliationSuccess reads these eight lists)."""
    result: dict[str, Any] = {key: [] for key in ("created", "updated", "deleted", "renamed", "transferred",
                                                  "transfer_pending", "warnings", "info", "removable_entries")}
    for class_name, entry in exports.items():
        if not isinstance(entry, dict) or entry.get("type") not in ("durable-object", "durable_object"):
            continue
        existing = account.namespace_of(script, class_name)
        if entry.get("state", "created") == "deleted":
            if existing is None:
                result["info"].append({"scenario": "stale_tombstone", "class": class_name, "message": (
                    f"Tombstone of type 'deleted' for class '{class_name}' has no effect (no namespace exists with "
                    "this class name). Safe to remove from `exports`.")})
                result["removable_entries"].append(class_name)
            else:
                account.namespaces.remove(existing)
                double.bundles.drop_state(script, existing)
                result["deleted"].append(class_name)
        elif existing is None:
            account.create_namespace(script, class_name, sqlite=entry.get("storage") == "sqlite")
            result["created"].append(class_name)
    return result


@route("PUT", "/accounts/{account}/workers/scripts/{script}")
def upload(double: Any, request: Request, match: re.Match[str]) -> Answer:
    """Store the Worker, reconcile its `exports`, start it on workerd (cli.js:168040: PUT ?excludeScript=true)."""
    account = _account(double, match)
    if not double.user.email_verified:
        return unverified_email_answer()
    metadata, modules = parse_upload(request)
    name = match["script"]
    rejected = check_upload(metadata, modules, {n.class_name for n in account.namespaces if n.script == name})
    if rejected is not None:
        return rejected
    previous = account.scripts.get(name)
    stamp = now_iso()
    script = Script(name=name, tag=previous.tag if previous else hex_id(), modules=modules, metadata=metadata,
                    created_on=previous.created_on if previous else stamp, modified_on=stamp,
                    versions=previous.versions if previous else [], workers_dev=bool(previous and previous.workers_dev))
    reconciliation = reconcile(double, account, name, metadata.get("exports") or {})
    _attach_namespaces(account, script)
    account.scripts[name] = script
    version = account.new_version(script)
    try:
        double.bundles.deploy(account, script)
    except Exception as exc:  # noqa: BLE001 - workerd refused the Worker: an answer, never a dropped request
        _undo_upload(double, account, previous, script, reconciliation["created"])
        return error(400, WORKER_START_FAILED, f"Uncaught error while starting the Worker: {type(exc).__name__} "
                     "(the Worker threw while it was validated; nothing was deployed)")
    result = {"id": name, "tag": script.tag, "etag": hex_id(), "handlers": ["fetch"], "deployment_id": version,
              "created_on": script.created_on, "modified_on": script.modified_on, "startup_time_ms": 3,
              "has_assets": False, "has_modules": True, "usage_model": "standard"}
    if any(reconciliation.values()):
        result["exports_reconciliation"] = reconciliation
    return ok(result)


def _undo_upload(double: Any, account: Account, previous: Script | None, script: Script, created: list[str]) -> None:
    """A rejected upload changes nothing: its new namespaces go, the previous version (if any) runs again."""
    for class_name in created:
        made = account.namespace_of(script.name, class_name)
        if made is not None:
            account.namespaces.remove(made)
    script.versions.pop()
    if previous is None:
        del account.scripts[script.name]
        double.bundles.remove(script.name)
        return
    account.scripts[script.name] = previous
    with contextlib.suppress(Exception):  # it ran before; should it fail now, it stays stopped
        double.bundles.deploy(account, previous)


def _attach_namespaces(account: Account, script: Script) -> None:
    """Durable Object bindings get the namespace_id of this script's class (GET /settings shows it)."""
    for binding in script.bindings:
        if binding.get("type") == "durable_object_namespace":
            owner = binding.get("script_name") or script.name
            found = account.namespace_of(owner, str(binding.get("class_name")))
            if found is not None:
                binding["namespace_id"] = found.id


@route("GET", "/accounts/{account}/workers/scripts/{script}/deployments")
def deployments(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # cli.js:155236 fetchLatestDeployments reads result.deployments[].versions[].{version_id, percentage}
    found = _script(double, match)
    if found is None:
        return _script_missing(match["script"])
    latest = found.versions[-1:]
    return ok({"deployments": [{"id": hex_id(), "source": "wrangler", "strategy": "percentage",
                                "created_on": found.modified_on, "annotations": {"workers/triggered_by": "upload"},
                                "versions": [{"version_id": v, "percentage": 100} for v in latest]}]})


@route("GET", "/accounts/{account}/workers/scripts/{script}/subdomain")
def script_subdomain(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # cli.js:152728 reads {enabled, previews_enabled} before and after the POST
    found = _script(double, match)
    if found is None:
        return _script_missing(match["script"])
    return ok({"enabled": found.workers_dev, "previews_enabled": False})


@route("POST", "/accounts/{account}/workers/scripts/{script}/subdomain")
def set_script_subdomain(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # cli.js:152730: body {enabled, previews_enabled}; Cloudflare SDK workers.scripts.subdomain.create
    found = _script(double, match)
    if found is None:
        return _script_missing(match["script"])
    wanted = request.json() or {}
    found.workers_dev = bool(wanted.get("enabled"))
    double.bundles.route_opened(found)
    return ok({"enabled": found.workers_dev, "previews_enabled": bool(wanted.get("previews_enabled"))})


@route("GET", "/accounts/{account}/workers/scripts/{script}/settings")
def script_settings(double: Any, request: Request, match: re.Match[str]) -> Answer:
    """The settings the verifier reads: bindings with namespace_id (Cloudflare SDK ScriptSettings
    {bindings, compatibility_date, compatibility_flags, observability, tags, …})."""
    found = _script(double, match)
    if found is None:
        return _script_missing(match["script"])
    meta = found.metadata
    bindings = found.bindings
    if double.user.faults.settings_without_namespace_id:  # Python SDK binding model: namespace_id Optional[str]
        bindings = [{k: v for k, v in b.items() if k != "namespace_id"} for b in bindings]
    return ok({"bindings": bindings, "compatibility_date": meta.get("compatibility_date"),
               "compatibility_flags": meta.get("compatibility_flags") or [], "logpush": False,
               "observability": meta.get("observability") or {"enabled": False}, "placement": {},
               "tags": meta.get("tags") or [], "tail_consumers": [], "usage_model": "standard"})


@route("PATCH", "/accounts/{account}/workers/scripts/{script}/script-settings")
def patch_script_settings(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # cli.js patchNonVersionedScriptSettings: {tail_consumers, logpush, observability, tags}
    found = _script(double, match)
    if found is None:
        return _script_missing(match["script"])
    found.metadata.update({k: v for k, v in (request.json() or {}).items() if k in ("observability", "tags")})
    return ok({"logpush": False, "observability": found.metadata.get("observability"),
               "tags": found.metadata.get("tags") or [], "tail_consumers": []})


@route("GET", "/accounts/{account}/workers/durable_objects/namespaces")
def namespaces(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # Cloudflare SDK durableObjects.namespaces.list (V4PagePaginationArray): {id, name, script, class, use_sqlite}
    listed = [n.as_json() for n in _account(double, match).namespaces]
    return page(listed, int(request.query.get("page", 1)), int(request.query.get("per_page", 20)))


@route("GET", "/accounts/{account}/workers/scripts/{script}/references")
def references(double: Any, request: Request, match: re.Match[str]) -> Answer:
    # cli.js:228132 checkAndConfirmForceDeleteIfNecessary reads services.incoming, durable_objects[].service,
    # dispatch_outbounds; the Worker's own namespaces are listed with service == the script (and skipped there)
    name = match["script"]
    account = _account(double, match)
    if name not in account.scripts:
        return _script_missing(name)
    own = [{"service": name, "environment": "production", "durable_object_namespace_id": n.id,
            "durable_object_namespace_name": n.name} for n in account.namespaces if n.script == name]
    return ok({"services": {"incoming": [], "outgoing": []}, "durable_objects": own, "dispatch_outbounds": []})


@route("GET", "/accounts/{account}/workers/tails/by-consumer/{script}")
def tail_producers(double: Any, request: Request, match: re.Match[str]) -> Answer:
    return ok([])  # cli.js:228136: a non-empty list would make the Worker a tail consumer


@route("GET", "/accounts/{account}/storage/kv/namespaces")
def kv_namespaces(double: Any, request: Request, match: re.Match[str]) -> Answer:
    return page([], 1, int(request.query.get("per_page", 100)))  # cli.js:206934 (Workers Sites leftovers: none)


@route("DELETE", "/accounts/{account}/workers/services/{script}")
def delete_script(double: Any, request: Request, match: re.Match[str]) -> Answer:
    """cli.js:228283: DELETE …/services/<name>?force=<bool>. Without force the double refuses while a namespace
    of the Worker exists (the tombstone deploy removes it first); with force both go (not confirmed on a real
    account: the note of issue 17 says so)."""
    account = _account(double, match)
    name = match["script"]
    if name not in account.scripts:
        return _script_missing(name)
    left = [n for n in account.namespaces if n.script == name]
    if left and request.query.get("force") != "true":
        return error(400, 10064, "Cannot delete this Worker: it has Durable Object namespaces "
                     f"({', '.join(n.class_name for n in left)}); delete them first or use force.")
    for namespace in left:
        account.namespaces.remove(namespace)
        double.bundles.drop_state(name, namespace)
    del account.scripts[name]
    double.bundles.remove(name)
    return ok(None)
