"""One run of the bad-input drill: seed a workshop, take the state, send the table and the generated requests and
judge every answer, probe the runtime, check the valid answers, take the state again."""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reservation_lab.domain.client import LabClient
from reservation_lab.domain.runs import RunFolder, serving
from reservation_lab.drills.bad_input.cases import CASES, RESERVATIONS, SEED_WORKSHOP, STATUS, json_body
from reservation_lab.drills.bad_input.digest import StateDigest, durable_digest
from reservation_lab.drills.bad_input.generation import generate, hypothesis_home
from reservation_lab.drills.bad_input.openapi import OPENAPI, load_openapi
from reservation_lab.drills.bad_input.oracle import Contract
from reservation_lab.drills.bad_input.raw_http import send_with_retry
from reservation_lab.drills.bad_input.report import BadInputReport, Finding
from reservation_lab.drills.bad_input.wire import Answer, Expected, RawRequest
from reservation_lab.drills.common import DrillFolder, choose_seed, progress_bar, require_between
from reservation_lab.errors import LabError
from reservation_lab.i18n import plural, quoted
from reservation_lab.runtime.devserver import DevServer

MAX_EXAMPLES = 5000
MAX_SILENT = 5  # this many requests in a row without any answer end the drill (the server is gone or hung)
SEED_ACCEPTED = ("request-seed", 2)  # accepted: 2 of 4 seats
SEED_REJECTED = ("request-seed-big", 3)  # rejected: 3 more do not fit
RUNTIME_PROBES = ("FOO", "get", "M-SEARCH", "BIND", "LINK", "CONNECT")


def run_bad_input_drill(
    examples: int = 1000,
    workdir: str | Path | None = None,
    seed: int | None = None,
    progress: bool = True,
    openapi: Path = OPENAPI,
) -> BadInputReport:
    """Run the bad-input drill (see the package docstring) on a fresh run folder and dev server.

    Without `workdir` the run folder goes to a temporary directory, removed when everything held.
    """
    require_between("--examples", examples, 0, MAX_EXAMPLES)
    contract = Contract(load_openapi(openapi))
    seed = choose_seed(seed)
    folder = DrillFolder.open(workdir, "bad-input-drill-")
    run = folder.run_folder()
    with hypothesis_home(run.root / ".hypothesis"):
        generated = generate(contract, examples, seed)
    report = BadInputReport(seed=seed, examples=examples, workdir=run.root)
    report.kinds = dict(Counter(request.kind for request in generated))
    with serving(run, log_name="bad-input-drill.log") as server:
        report.port = server.port
        _drill(_Link(server), run, contract, generated, report, progress)
    folder.finish(report.ok)
    return report


@dataclass
class _Link:
    """The connection to the dev server: sends with `send_with_retry`, keeps every retry as (reason, request)."""

    server: DevServer
    retried: list[tuple[str, RawRequest]] = field(default_factory=list)

    def send(self, request: RawRequest) -> Answer:
        return send_with_retry(self.server.port, request, self.retried)


def _drill(link: _Link, run: RunFolder, contract: Contract, generated: list[RawRequest], report: BadInputReport,
           progress: bool) -> None:
    seed_requests, seeds = _seed(link)
    report.status_before, report.digest_before = _durable_state(link.server, run)
    table = [(case.request(), Expected(case.status, case.error)) for case in CASES]
    _send_and_judge(link, contract, table + [(request, contract.expect(request)) for request in generated], report,
                    progress)
    report.table_sent, report.generated_sent = len(table), len(generated)
    for method in RUNTIME_PROBES:
        answer = link.send(RawRequest("probe", method, STATUS))
        report.runtime_probes.append((method, answer.status, answer.headers.get("content-type", ""), answer.body[:80]))
    _check_valid_answers(link, contract, seed_requests, seeds, report)
    report.proxy_drops = sum(reason == "proxy drop" for reason, _ in link.retried)
    report.connection_retries = Counter(request.shape() for reason, request in link.retried if reason == "connection")
    report.status_after, report.digest_after = _durable_state(link.server, run)


def _seed(link: _Link) -> tuple[list[RawRequest], list[Answer]]:
    """Reserve in the seeded workshop: one accepted, one rejected request (so 'unchanged' is a non-trivial claim)."""
    requests = [RawRequest("seed", "POST", RESERVATIONS, json_body({"requestId": rid, "seats": seats}))
                for rid, seats in (SEED_ACCEPTED, SEED_REJECTED)]
    answers = [link.send(request) for request in requests]
    if [answer.status for answer in answers] != [201, 409]:
        raise LabError("drills.seeding_failed", workshop=quoted(SEED_WORKSHOP), log=link.server.log_path,
                       answers=[(a.status, a.body[:100], a.error) for a in answers])
    return requests, answers


def _durable_state(server: DevServer, run: RunFolder) -> tuple[dict[str, Any], StateDigest]:
    """The seeded workshop's status and the digest of the Durable Object storage."""
    with LabClient(server.base_url) as client:
        status = client.status(SEED_WORKSHOP)
    return status, durable_digest(run.state_dir)


def _send_and_judge(link: _Link, contract: Contract, planned: list[tuple[RawRequest, Expected | None]],
                    report: BadInputReport, progress: bool) -> None:
    """Send every planned request and record its answer; end early when the server stops answering."""
    bar = progress_bar(planned, desc="bad input", enabled=progress)
    statuses: Counter[int] = Counter()
    errors: Counter[str] = Counter()
    previous: RawRequest | None = None
    silent = 0  # requests in a row without an answer: a dead or hung server ends the drill early
    for request, expected in bar:
        before = len(link.retried)
        answer = link.send(request)
        silent = silent + 1 if answer.error is not None else 0
        if silent >= MAX_SILENT or link.server.proc.poll() is not None:
            bar.close()
            raise LabError(plural("drills.server_stopped", len(report.findings), error=answer.error or "exit",
                                  log=link.server.log_path))
        if previous is not None and any(reason == "proxy drop" for reason, _ in link.retried[before:]):
            report.drops_after[previous.kind if previous.kind.startswith("table") else previous.shape()] += 1
        previous = request
        statuses[answer.status] += 1
        if answer.status >= 500:
            report.server_errors += 1
        with contextlib.suppress(ValueError, AttributeError):
            errors[json.loads(answer.body).get("error", "-")] += 1
        problems = contract.check_answer(request, answer, expected)
        if problems:
            report.findings.append(Finding(request, expected, answer, problems))
    report.statuses, report.errors = dict(statuses), dict(errors)


def _check_valid_answers(link: _Link, contract: Contract, seed_requests: list[RawRequest], seeds: list[Answer],
                         report: BadInputReport) -> None:
    """Valid requests inside the window: health, status and the replays of both seeds. They must conform to
    openapi.yaml (as must the seeds' own answers), the replays must repeat the first decisions, and none of
    them may change durable state either."""
    valid = [RawRequest("valid", "GET", "/health", content_type=None),
             RawRequest("valid", "GET", STATUS, content_type=None)]
    checked = [*zip(seed_requests, seeds, strict=True)]
    checked += [(request, link.send(request)) for request in valid + seed_requests]
    for request, answer in checked:
        report.valid_checked += 1
        report.valid_problems += [f"{request.describe()}: {p}" for p in contract.check_answer(request, answer, None)]
    for first, again in zip(seeds, [answer for _, answer in checked[-len(seeds):]], strict=True):
        replay = {**json.loads(first.body), "replayed": True}
        try:
            got = json.loads(again.body)
        except ValueError:
            got = again.body[:80]
        if (again.status, got) != (first.status, replay):
            report.valid_problems.append(f"a replay answered {again.status} {got!r}, not {first.status} {replay}")
