"""What the cells show: JSON, configs, sources, decision tables, the race, skipped steps, the report."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reservation_lab.course.session import context, current
from reservation_lab.domain.config import redacted
from reservation_lab.domain.decisions import Decision
from reservation_lab.domain.invariants import all_replayed
from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import LabError
from reservation_lab.i18n import describe, message, plural
from reservation_lab.race.demo import Race
from reservation_lab.race.plots import label, plot_bursts
from reservation_lab.runtime.commands import shown_folder


def shown_path(path: Path) -> str:
    """A path as shown in a notebook: relative to the repository when inside it (runtime.commands.shown_folder)."""
    return shown_folder(path)


def print_json(data: Any) -> None:
    """Print data as indented JSON (dataclasses via their dict)."""
    if hasattr(data, "as_dict"):
        data = data.as_dict()
    print(json.dumps(data, indent=2, ensure_ascii=False))


def skip_cloud(step: int | str) -> None:
    """Say in one line, in the notebook's language, that a cloud step was skipped and why."""
    ctx = context()
    print(ctx.say("lines.skipped_login") if step == "login" else ctx.say("lines.skipped_step", step=step))


def show_config(path: Path) -> None:
    """Print a wrangler config with the account ID hidden."""
    print_json(redacted(json.loads(Path(path).read_text()), context().say("lines.hidden_value")))


def decision_table(decisions: Iterable[Decision]) -> list[dict[str, Any]]:
    """Every decision as a row, sorted by requestId in natural order (request-2 before request-10)."""

    def key(d: Decision) -> tuple[str, int]:
        head, _, tail = d.request_id.rpartition("-")
        return (head, int(tail)) if tail.isdigit() else (d.request_id, -1)

    return [
        {"requestId": d.request_id, "http": d.status_code, "status": d.status, "reserved": d.reserved,
         "replayed": d.replayed if d.body else None, "attempts": len(d.attempts)}
        for d in sorted(decisions, key=key)
    ]


def show_decisions(decisions: Iterable[Decision]) -> None:
    """One line a request, sorted by requestId: HTTP status, decision (in the notebook's language, as the race
    table and the plot say it; the API's own value is in the JSON), reserved after it.

    When every answer was a replay (the burst cell ran a second time), says so first, in the notebook's language.
    """
    decisions, language = list(decisions), context().language
    if all_replayed(decisions):
        print(message("friendly.replayed_burst", language))
    words = {status: message(f"checker.status_{status}", language) for status in ("accepted", "rejected")}
    width = max(map(len, words.values()))
    for row in decision_table(decisions):
        retry = "  " + describe(plural("lines.attempts", row["attempts"]), language) if row["attempts"] > 1 else ""
        status = words.get(row["status"], row["status"] or "–")
        reserved = "–" if row["reserved"] is None else row["reserved"]
        print(f"{row['requestId']:<24} {row['http'] or '–'}  {status:<{width}} reserved={reserved}{retry}")


def decision_of(decisions: Iterable[Decision], request_id: str) -> Decision:
    """The decision for one requestId of a burst."""
    for decision in decisions:
        if decision.request_id == request_id:
            return decision
    raise LabError("errors.not_in_burst", rid=request_id)


def show_race(race: Race, language: str | None = None) -> None:
    """The race in numbers: answers, confirmed seats and the durable counter, per Worker (in the session's
    language unless `language` is given)."""
    language = language or context().language
    width = max(len(label(key, language)) for key in ("naive", "atomic")) + 2
    print(f"{'':<{width}} {label('column_accepted', language):>10} {label('column_rejected', language):>10} "
          f"{label('seats', language):>8} {label('column_reserved', language):>8}")
    for key, burst in (("naive", race.naive), ("atomic", race.atomic)):
        facts = burst.facts()
        print(f"{label(key, language):<{width}} {facts['accepted']:>10} {facts['rejected']:>10} "
              f"{facts['acceptedSeats']:>8} {facts['durableReserved']:>8}")


def plot_race(race: Race, language: str | None = None) -> None:
    """Show the naive and the atomic burst as timelines side by side (labels in the session's language unless
    `language` is given)."""
    language = language or context().language
    from IPython.display import display

    display(plot_bursts({label("naive", language): race.naive.decisions,
                         label("atomic", language): race.atomic.decisions}, language,
                        alt=message("site.figure_race_plot", language)))


def write_report(run: RunFolder, **data: Any) -> dict[str, Any]:
    """Write report.json into the run folder (read by `./lab run` and `./lab mark`): `data`, whether this was a
    record-only run, and the session's check ledger (`checks`: label, passed, expected, actual of every check).
    Returns the report with the ledger counted (`checks`: passed and failed), which reads the same in every run."""
    ledger = current().ledger
    report = {"run": run.name, **data, "record_only": ledger.record_only}
    (run.root / "report.json").write_text(json.dumps({**report, "checks": ledger.entries}, indent=2) + "\n")
    passed = sum(entry["passed"] for entry in ledger.entries)
    return {**report, "checks": {"passed": passed, "failed": len(ledger.entries) - passed}}


def say(key: str, **values: Any) -> None:
    """Print the catalog's line `lines.<key>` in the notebook's language."""
    print(context().say(f"lines.{key}", **values))
