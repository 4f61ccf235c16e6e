"""The local half of the lab (seeds' steps 2–4) end to end, as one function and one command."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reservation_lab.domain.burst import send_burst_sync
from reservation_lab.domain.client import LabClient
from reservation_lab.domain.config import RunFolder, create_run_folder, write_wrangler_config
from reservation_lab.domain.invariants import (
    check_burst,
    check_equal,
    check_status,
    decision_table,
    durable_view,
    expected_summary,
    totals_after,
)
from reservation_lab.runtime.devserver import start_dev_server
from reservation_lab.runtime.nodetests import run_node_tests
from reservation_lab.runtime.wrangler import run_wrangler

AFTER_RESTART_ID = "request-after-restart"


@dataclass
class LocalLabReport:
    """What the local run proved, in numbers."""

    run_name: str
    summary: dict[str, int] = field(default_factory=dict)
    status_after_burst: dict[str, int] = field(default_factory=dict)
    status_after_restart: dict[str, int] = field(default_factory=dict)
    replay: dict[str, Any] = field(default_factory=dict)
    after_restart: dict[str, Any] = field(default_factory=dict)
    final_status: dict[str, int] = field(default_factory=dict)
    node_tests_passed: int = 0


def dry_run(run: RunFolder, echo: Any = None) -> None:
    """`wrangler deploy --dry-run`: bundle the Worker for real, create nothing remote."""
    run_wrangler("deploy", "--dry-run", "--config", str(run.config), "--outdir", str(run.root / "dist"),
                 cwd=run.root, echo=echo)


def run_local_lab(
    workdir: str | Path | None = None,
    workshop: str = "launch-day",
    burst_size: int = 10,
    port: int = 0,
    say: Callable[[str], None] = print,
) -> LocalLabReport:
    """Steps 2–4: node tests and dry run, a burst on `wrangler dev`, a restart on the same state."""
    run = create_run_folder(workdir)
    write_wrangler_config(run)
    report = LocalLabReport(run_name=run.name)
    say(f"run {run.name} in {run.root}")

    report.node_tests_passed = run_node_tests().passed
    say(f"node tests: {report.node_tests_passed} passed")
    dry_run(run)
    say("wrangler deploy --dry-run: ok")

    expected = expected_summary(burst_size)
    with start_dev_server(run, port=port, log_name="dev.log") as server, LabClient(server.base_url) as client:
        say(f"wrangler dev healthy on port {server.port} after {server.healthy_after:.1f} s")
        before = client.status(workshop)
        decisions = send_burst_sync(server.base_url, workshop, burst_size)
        after = client.status(workshop)
        for row in decision_table(decisions):
            say(json.dumps(row))
        summary = check_burst(decisions, before, after)
        check_equal("burst summary", summary, expected)
        report.summary = summary.as_dict()
        report.status_after_burst = durable_view(after)
        say(f"summary: {json.dumps(report.summary)}")
        say(f"status:  {json.dumps(report.status_after_burst)}")

    with start_dev_server(run, port=port, log_name="dev-restarted.log") as server, LabClient(server.base_url) as client:
        restarted = durable_view(client.status(workshop))
        check_equal("status after restart", restarted, report.status_after_burst)
        report.status_after_restart = restarted
        say(f"after restart: {json.dumps(restarted)}")

        replay = client.reserve(workshop, "request-1")
        first = next(d for d in decisions if d.request_id == "request-1")
        check_equal("replayed decision of request-1", (replay.body["status"], replay.body["replayed"]),
                    (first.status, True))
        report.replay = replay.body
        say(f"replay request-1: HTTP {replay.status_code} {json.dumps(replay.body)}")

        late = client.reserve(workshop, AFTER_RESTART_ID)
        report.after_restart = late.body
        say(f"{AFTER_RESTART_ID}: HTTP {late.status_code} {json.dumps(late.body)}")
        final = durable_view(client.status(workshop))
        check_status(final)
        late_expected = expected_summary(1, reserved_before=restarted["reserved"])
        check_equal("final totals", final, totals_after(restarted, late_expected))
        report.final_status = final
        say(f"final:   {json.dumps(final)}")
    return report
