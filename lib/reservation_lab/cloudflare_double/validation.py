"""What Cloudflare refuses at deploy time in a Worker upload that declares Durable Object `exports`, and the answer
to an account whose e-mail address is not verified: pure functions of the upload, each returning the answer.

Sources (names as cited beside each shape below):
- `cli.js:<line>`: the pinned bundle worker/node_modules/wrangler/wrangler-dist/cli.js (wrangler 4.132.0).
- `sdk <file>`: cloudflare/workers-sdk @ f830836 (types.ts: packages/workers-utils/src/types.ts
  `ExportsReconciliationErrorDetail`; durable-objects.test.ts and workers-dev.test.ts: packages/wrangler/src/__tests__/
  deploy/; friendly-validator-errors.ts: packages/deploy-helpers/src/deploy/helpers/).
- `schema:<name>`: cloudflare/api-schemas openapi.json @ c92b9b0 (`workers_exports_reconciliation_error_response`,
  `workers_exports_reconciliation_error`, `workers_exports_reconciliation_scenario`, `workers_durable_object_export`).
- `docs:<section>`: developers.cloudflare.com/durable-objects/reference/durable-objects-migrations/ ("How exports
  works", "Delete a Durable Object class", "Storage backends", "Error reference", "Constraints and limitations").
- `issue:<n>`: github.com/cloudflare/workers-sdk/issues/<n>.

Cloudflare publishes the scenario tags and their meaning, not its per-class message text (docs:Reading the
reconciliation output quotes one, used here for `orphaned_provisioned_namespace`); the other messages are the double's
words for the meaning the error reference gives. What the exported classes are is read from the uploaded main
module's text (`exported_names`), as ES modules are written by hand and by esbuild (wrangler's bundle ends in
`export { WorkshopReservations, index_default as default };`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from reservation_lab.cloudflare_double.envelope import Answer, error

EXPORTS_RECONCILIATION_FAILED = 100402  # cli.js:150952 EXPORTS_RECONCILIATION_ERROR_CODE; schema: enum [100402]
VALIDATION_ERROR = 10021  # sdk friendly-validator-errors.ts "10021 = validation error" (see check (a): assumed)
EMAIL_VERIFICATION_REQUIRED = 10034  # issue:15641 "[code: 10034]"; sdk workers-dev.test.ts mocks code 10034
EMAIL_VERIFICATION_DOCS = "https://developers.cloudflare.com/fundamentals/setup/account/verify-email-address/"

DURABLE_OBJECT_TYPES = ("durable-object", "durable_object")  # schema: "durable-object"; api.reconcile takes both
LIVE_STATES = ("created", "expecting-transfer")  # docs:Storage backends "Live entries (…) must declare a storage"
TOMBSTONE_STATES = ("deleted", "renamed", "transferred")  # docs:exports configuration reference: storage forbidden
STORAGES = ("sqlite", "legacy-kv")  # schema workers_export_storage; cli.js:25725 VALID_EXPORT_STORAGES

Detail = dict[str, str]  # sdk types.ts ExportsReconciliationErrorDetail: class, scenario, message[, suggestion]


# --- (a)-(d): the checks --------------------------------------------------------------------------------------------

def check_upload(metadata: Mapping[str, Any], modules: Mapping[str, bytes],
                 existing_classes: Collection[str] = frozenset()) -> Answer | None:
    """None when Cloudflare would accept this upload, else the error answer it sends.

    `metadata` and `modules` are the PUT's multipart parts (api.parse_upload); `existing_classes` the classes this
    script already has a namespace for (provisioned state: decides config_export_not_in_code against
    config_references_nonexistent_class, and finds namespaces the upload no longer declares). In order:
    (a) `exports` with Durable Object entries and `migrations` in one upload; (b) an entry of the wrong shape
    (`storage` missing on a live entry, present on a tombstone, an unknown `state`); then the reconciliation of
    config, code and provisioned namespaces, (c) and (d) among it, all classes reported together.
    """
    entries = durable_object_entries(metadata)
    if entries and metadata.get("migrations"):
        # Assumed answer: docs:Constraints says an upload with both "is rejected at validation" but not with what;
        # wrangler's own check (cli.js:22734 errorIfMigrationsAndExportsBothSet) stops it first and is the only
        # published wording. 10021 is the Workers API's validation error code (sdk friendly-validator-errors.ts).
        return error(400, VALIDATION_ERROR, "`migrations` and `exports` are mutually exclusive. Choose one or the "
                     "other to declare your Durable Object lifecycle, but not both.")
    shape = [found for name, entry in entries.items() if (found := _shape_error(name, entry))]
    if shape:
        return reconciliation_failure(shape)
    if not entries and (metadata.get("migrations") or not existing_classes):
        return None  # no `exports`: nothing to reconcile (docs: "or neither, which reconciles against an empty config")
    details = _reconcile_errors(entries, exported_names_of_upload(metadata, modules), set(existing_classes))
    return reconciliation_failure(details) if details else None


def durable_object_entries(metadata: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The upload's `exports` entries of type durable-object, by class name (`type: worker` entries are not
    reconciled: schema workers_exports_reconciliation_result)."""
    exports = metadata.get("exports")
    if not isinstance(exports, Mapping):
        return {}
    return {str(name): dict(entry) for name, entry in exports.items()
            if isinstance(entry, Mapping) and entry.get("type") in DURABLE_OBJECT_TYPES}


def _shape_error(name: str, entry: Mapping[str, Any]) -> Detail | None:
    """(b): schema workers_durable_object_export ("`storage` is required"), docs:exports configuration reference
    ("Forbidden on tombstone states"). Scenario `invalid_export` ("an exports entry is structurally invalid",
    docs:Error reference) is assumed: the schema says such fields "are rejected" without naming the error."""
    state = entry.get("state", "created")
    storage = entry.get("storage")
    if state in LIVE_STATES and storage not in STORAGES:
        return _detail(name, "invalid_export",
                       f"The `exports` entry for '{name}' is invalid: `storage` is required for state \"{state}\" "
                       f"and must be \"sqlite\" or \"legacy-kv\", but got {_shown(storage)}.",
                       f"Add \"storage\": \"sqlite\" to the `exports` entry for '{name}'.")
    if state in TOMBSTONE_STATES and "storage" in entry:
        return _detail(name, "invalid_export",
                       f"The `exports` entry for '{name}' is invalid: `storage` is forbidden on state \"{state}\".",
                       f"Remove `storage` from the `{state}` tombstone for '{name}'.")
    if state not in LIVE_STATES + TOMBSTONE_STATES:
        return _detail(name, "invalid_export",
                       f"The `exports` entry for '{name}' is invalid: unknown state {_shown(state)}.",
                       "Use one of \"created\", \"deleted\", \"renamed\", \"transferred\" or \"expecting-transfer\".")
    return None


def _reconcile_errors(entries: Mapping[str, Mapping[str, Any]], in_code: set[str],
                      existing: set[str]) -> list[Detail]:
    """The blocking scenarios of docs:Error reference that config, code and provisioned state decide."""
    found: list[Detail] = []
    for name, entry in entries.items():
        state = entry.get("state", "created")
        if state in LIVE_STATES and name not in in_code:  # (c)
            if name in existing:
                found.append(_detail(name, "config_export_not_in_code",
                                     f"The live `exports` entry for '{name}' declares a class that the uploaded "
                                     f"Worker code does not export.",
                                     f"Add the class '{name}' to your code, or replace the entry with a tombstone."))
            else:
                found.append(_detail(name, "config_references_nonexistent_class",
                                     f"The live `exports` entry for '{name}' declares a class that is neither "
                                     f"exported by the uploaded Worker code nor provisioned.",
                                     f"Remove the entry for '{name}', or add the class to your Worker code."))
        elif state == "created" and entry.get("storage") == "legacy-kv" and name not in existing:
            found.append(_detail(name, "invalid_export",
                                 f"The `exports` entry for '{name}' requests \"legacy-kv\" storage for a new "
                                 f"namespace; new namespaces must use \"sqlite\".",
                                 "Use \"storage\": \"sqlite\" for new namespaces."))
        elif state == "deleted" and name in in_code:  # (d)
            found.append(_detail(name, "tombstone_delete_class_still_in_code",
                                 f"The `deleted` tombstone for '{name}' names a class that is still exported in "
                                 f"code.",
                                 f"Remove the class '{name}' from your code first, then deploy the tombstone."))
    for name in sorted(existing - set(entries)):
        if name in in_code:
            found.append(_detail(name, "provisioned_class_missing_from_config",
                                 f"A namespace exists for '{name}', a class the Worker code still exports, but "
                                 f"`exports` has no entry for it.",
                                 f"Add a live entry for '{name}' to keep the namespace, or a tombstone (deleted, "
                                 f"renamed, or transferred) to retire it."))
        else:  # the one message docs:Reading the reconciliation output quotes verbatim
            found.append(_detail(name, "orphaned_provisioned_namespace",
                                 f"A namespace exists for '{name}' but no `exports` entry declares it.",
                                 f"add an `exports` entry for '{name}', or add a `deleted` tombstone to remove "
                                 f"the namespace."))
    return found


def _detail(name: str, scenario: str, message: str, suggestion: str) -> Detail:
    return {"class": name, "scenario": scenario, "message": message, "suggestion": suggestion}


def _shown(value: Any) -> str:
    return "nothing" if value is None else repr(value).replace("'", '"')


# --- the answers ------------------------------------------------------------------------------------------------

def reconciliation_failure(details: list[Detail]) -> Answer:
    """HTTP 400, code 100402, the per-class details in errors[0].meta.details sorted by class name (schema
    workers_exports_reconciliation_error_response; sdk durable-objects.test.ts mocks the same envelope). wrangler
    reads errors[0].code and errors[0].meta (cli.js:56231-56238 throwFetchError), checks the details
    (cli.js:157087 isExportsReconciliationErrorDetails) and prints them (cli.js:157070
    renderExportsReconciliationError, thrown as a UserError at cli.js:168115). The aggregate `message` ("multi-line,
    human-readable summary", schema) is the double's wording."""
    ordered = sorted(details, key=lambda d: (d["class"], d["scenario"]))
    summary = "\n".join(f"[{d['scenario']}] class '{d['class']}': {d['message']}" for d in ordered)
    status, body = error(400, EXPORTS_RECONCILIATION_FAILED,
                         "Durable Object exports reconciliation failed:\n" + summary)
    body["errors"][0]["meta"] = {"details": ordered}
    return status, body


def unverified_email_answer() -> Answer:
    """What the API answers an account whose e-mail address is not verified.

    Confirmed: code 10034 and the message text with its documentation_url (issue:15641, wrangler 4.131.2 printing
    renderError's `${message} [code: 10034]` and "To learn more about this error, visit: ${documentation_url}",
    cli.js:56142). Assumed: HTTP 403 (issue:11394's debug log shows the PUT …/workers/scripts/<name> answered
    "Forbidden 403" to an unverified account; the body is sanitized there). Older API answers carried the message
    "workers.api.error.email_verification_required", which wrangler rewrites (cli.js:55918 maybeThrowFriendlyError,
    issue:4187, sdk workers-dev.test.ts); the current text is not rewritten."""
    status, body = error(403, EMAIL_VERIFICATION_REQUIRED,
                         "You need to verify your email address to use Workers. For more information, read our "
                         f"documentation on verifying your email address: {EMAIL_VERIFICATION_DOCS}")
    body["errors"][0]["documentation_url"] = EMAIL_VERIFICATION_DOCS
    return status, body


# --- which classes the uploaded code exports -----------------------------------------------------------------------

IDENTIFIER = r"[A-Za-z_$][\w$]*"
_DECLARED = re.compile(rf"(?<![\w$.])export\s+(?:class|const|let|var)\s+({IDENTIFIER})")  # not `export default`
_LISTED = re.compile(r"(?<![\w$.])export\s*\{([^}]*)\}")  # export { A, B as C } [from "…"]
_ALL_FROM = re.compile(r"(?<![\w$.])export\s*\*\s*from\s*(['\"])(.*?)\1")
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}
_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
                      "yield", "await"}


def exported_names_of_upload(metadata: Mapping[str, Any], modules: Mapping[str, bytes]) -> set[str]:
    """The names the upload's main module exports (metadata.main_module names its part; cli.js:156324)."""
    main = str(metadata.get("main_module") or metadata.get("body_part") or "")
    return exported_names(main, modules)


def exported_names(module: str, modules: Mapping[str, bytes], seen: frozenset[str] = frozenset()) -> set[str]:
    """Names `module` exports: `export class X`, `export const|let|var X`, `export { X }`, `export { Y as X }`, and
    what `export * from "./m.js"` brings from a module of the upload. `export default class X` exports `default`,
    not X; comments and the text of strings count for nothing."""
    if module not in modules or module in seen:
        return set()
    code = strip_comments(modules[module].decode("utf-8", "replace"), keep_strings=False)
    names = set(_DECLARED.findall(code))
    for listed in _LISTED.findall(code):
        for item in listed.split(","):
            words = item.split()
            if words and re.fullmatch(IDENTIFIER, words[-1]) and words[-1] != "default":
                names.add(words[-1])
    source = strip_comments(modules[module].decode("utf-8", "replace"), keep_strings=True)
    for _, target in _ALL_FROM.findall(source):
        names |= exported_names(_resolve(module, target), modules, seen | {module})
    return names


def _resolve(importer: str, target: str) -> str:
    parts = importer.split("/")[:-1]
    for part in target.split("/"):
        if part == "..":
            parts = parts[:-1]
        elif part not in (".", ""):
            parts.append(part)
    return "/".join(parts)


def strip_comments(code: str, keep_strings: bool = True) -> str:
    """`code` without // and /* */ comments (a space for each); string, template and regex literals are skipped
    whole, so a `//` in a URL or a regex is no comment. Without keep_strings a string's text is dropped ("")."""
    out: list[str] = []
    i = 0
    while i < len(code):
        pair = code[i:i + 2]
        if pair == "//":
            end = code.find("\n", i)
            i = len(code) if end < 0 else end
        elif pair == "/*":
            end = code.find("*/", i + 2)
            out.append(" ")
            i = len(code) if end < 0 else end + 2
        elif code[i] in "'\"`":
            end = _string_end(code, i)
            out.append(code[i:end] if keep_strings else code[i] * 2)
            i = end
        elif code[i] == "/" and _regex_may_start(out) and (end := _regex_end(code, i)) > 0:
            out.append(code[i:end])
            i = end
        else:
            out.append(code[i])
            i += 1
    return "".join(out)


def _string_end(code: str, start: int) -> int:
    """The index after the literal opened at `start` (a template's ${…} may hold strings and templates)."""
    quote, i = code[start], start + 1
    while i < len(code):
        if code[i] == "\\":
            i += 2
        elif code[i] == quote:
            return i + 1
        elif quote == "`" and code.startswith("${", i):
            i = _placeholder_end(code, i + 2)
        elif quote != "`" and code[i] == "\n":
            return i  # an unterminated string ends its line
        else:
            i += 1
    return len(code)


def _placeholder_end(code: str, i: int) -> int:
    depth = 1
    while i < len(code) and depth:
        if code[i] in "'\"`":
            i = _string_end(code, i)
            continue
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        i += 1
    return i


def _regex_may_start(out: list[str]) -> bool:
    """A `/` starts a regex literal after an operator, a bracket or a keyword such as return; else it divides."""
    before = "".join(out[-24:]).rstrip()
    word = re.search(rf"{IDENTIFIER}$", before)
    if word:
        return word.group() in _REGEX_AFTER_WORDS
    return before[-1:] in _REGEX_BEFORE


def _regex_end(code: str, start: int) -> int:
    """The index after the regex literal (with flags) opened at `start`, or -1 if the line holds none."""
    i, in_class = start + 1, False
    while i < len(code) and code[i] != "\n":
        if code[i] == "\\":
            i += 2
            continue
        if code[i] == "[":
            in_class = True
        elif code[i] == "]":
            in_class = False
        elif code[i] == "/" and not in_class:
            i += 1
            while i < len(code) and (code[i].isalnum() or code[i] in "_$"):
                i += 1
            return i
        i += 1
    return -1
