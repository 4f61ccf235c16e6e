"""Bad-input drill: malformed requests, sent raw to a real `wrangler dev`, checked against `worker/openapi.yaml`.

What is sent (each on its own connection, written to the socket as it is, so nothing normalises the path or the
body):

* the table of hand-written malformed requests (`cases.py`, the one source of these cases: `tests/test_bad_input.py`
  imports them), an oversized chunked body among them;
* `examples` malformed requests generated with hypothesis from the schemas in `openapi.yaml`: request bodies
  that violate `ReservationRequest` (wrong types, seats out of range or fractional, requestIds that break the
  pattern, too short or too long, huge strings, missing fields, extra nesting, non-objects, broken JSON, random
  bytes, bodies over the size limit, chunked or not), workshop names that break the name pattern (also as
  percent escapes, bad escapes, encoded slashes and invalid UTF-8), methods without an operation, and random
  paths (with dot segments and query strings);
* a few probes with methods the runtime's HTTP parser does not know (reported, not judged: they never reach
  the Worker, workerd answers them itself).

What must hold:

* no answer from the Worker is a 5xx;
* each answer is the one `openapi.yaml` documents for it: the drill reads the routes, the check order, the
  name and reservation schemas and the size limit from the file and predicts status and error code; the answer
  must be exactly that status, `Content-Type: application/json`, a body valid against the documented response
  schema (exactly `{"error": <code>}`) and, for a 405, the documented `Allow` header;
* the valid answers in the window (health, status, the replays of an accepted and a rejected reservation)
  conform to their documented schemas;
* durable state is unchanged: the seeded workshop's status is equal before and after, and so is a digest of
  the Durable Object storage: every SQLite file under `<state>/v3/do/` (each workshop's object and the
  namespace's metadata) is copied with its WAL, opened with Python's sqlite3, and every table's schema and rows
  are hashed. The set of files must be equal too (no bad request may create an object). The raw bytes of the
  files are compared as well and reported, but not judged: workerd may checkpoint a WAL at any time.

The modules, one job each: `openapi` (read the document), `js_semantics` (what the Worker's JavaScript makes of
a path or a body), `wire` (request and answer values), `oracle` (the `Contract`: predicted and checked answers),
`cases` (the table), `generation` (hypothesis strategies), `raw_http` (the raw client), `digest` (the SQLite
digest), `report` (findings and summary), `run` (the drill); this file has the CLI.
"""

from __future__ import annotations

import argparse

from reservation_lab.drills.bad_input.cases import CASES, RESERVATIONS, SEED_WORKSHOP, STATUS, Case, json_body
from reservation_lab.drills.bad_input.digest import StateDigest, durable_digest
from reservation_lab.drills.bad_input.generation import (
    BAD_ESCAPES,
    PCHAR,
    WORKER_METHODS,
    generate,
    hypothesis_home,
    strategies,
)
from reservation_lab.drills.bad_input.js_semantics import (
    DOT_SEGMENTS,
    INVALID,
    decode_uri_component,
    deep_recursion,
    normalise_path,
    parse_json_like_js,
)
from reservation_lab.drills.bad_input.openapi import OPENAPI, OPERATIONS, length_bounds, load_openapi, python_pattern
from reservation_lab.drills.bad_input.oracle import Contract
from reservation_lab.drills.bad_input.raw_http import (
    PROXY_RETRIES,
    REQUEST_TIMEOUT,
    is_proxy_drop,
    send_raw,
    send_with_retry,
)
from reservation_lab.drills.bad_input.report import BadInputReport, Finding
from reservation_lab.drills.bad_input.run import (
    MAX_EXAMPLES,
    MAX_SILENT,
    RUNTIME_PROBES,
    SEED_ACCEPTED,
    SEED_REJECTED,
    run_bad_input_drill,
)
from reservation_lab.drills.bad_input.wire import Answer, Expected, RawRequest
from reservation_lab.drills.common import add_progress_option, add_workdir_option, bounded_int, removed_note

__all__ = [
    "BAD_ESCAPES", "CASES", "DOT_SEGMENTS", "INVALID", "MAX_EXAMPLES", "MAX_SILENT", "OPENAPI", "OPERATIONS", "PCHAR",
    "PROXY_RETRIES", "REQUEST_TIMEOUT", "RESERVATIONS", "RUNTIME_PROBES", "SEED_ACCEPTED", "SEED_REJECTED",
    "SEED_WORKSHOP", "STATUS", "WORKER_METHODS", "Answer", "BadInputReport", "Case", "Contract", "Expected", "Finding",
    "RawRequest", "StateDigest", "add_arguments", "decode_uri_component", "deep_recursion", "durable_digest",
    "generate", "hypothesis_home", "is_proxy_drop", "json_body", "length_bounds", "load_openapi", "main",
    "normalise_path", "parse_json_like_js", "python_pattern", "run_bad_input_drill", "send_raw", "send_with_retry",
    "strategies",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `drill bad-input`; the command runs `main`."""
    parser.add_argument("--examples", type=bounded_int(0, MAX_EXAMPLES), default=1000,
                        help="generated malformed requests besides the table (default 1000)")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: a random one, printed)")
    add_workdir_option(parser)
    add_progress_option(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run the drill from parsed arguments and print the summary; 0 only if everything held."""
    report = run_bad_input_drill(args.examples, args.workdir, seed=args.seed, progress=not args.no_progress)
    print(report.summary())
    print(f"run folder: {report.workdir}{removed_note(bool(args.workdir), report.ok)}")
    return 0 if report.ok else 1
