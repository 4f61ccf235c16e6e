"""What the course notebooks show: small display and bookkeeping helpers behind the cells."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reservation_lab.burst import Decision
from reservation_lab.config import RunFolder, create_run_folder, redacted
from reservation_lab.devserver import DevServer, start_dev_server
from reservation_lab.invariants import decision_table, totals_after
from reservation_lab.messages import SKIPPED_LOGIN, SKIPPED_STEP, text
from reservation_lab.paths import REPO_ROOT, WORKER_SRC
from reservation_lab.plots import label, plot_bursts
from reservation_lab.race import Race
from reservation_lab.toolchain import pinned_wrangler_version
from reservation_lab.wrangler import run_wrangler

__all__ = [
    "pinned_wrangler_version", "prepare_run", "shown_path", "print_json", "skip_cloud", "show_config",
    "show_source", "wrangler_version", "start_server", "show_decisions", "decision_of", "totals_after",
    "write_report", "show_race", "plot_race",
]

_SERVERS: dict[Path, DevServer] = {}


def prepare_run(workdir: str | Path = "") -> RunFolder:
    """This run's own folder: `.runs/<run name>` by default, or the given workdir."""
    return create_run_folder(workdir or None)


def shown_path(path: Path) -> str:
    """A path as shown in a notebook: relative to the repository when inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def print_json(data: Any) -> None:
    """Print data as indented JSON (dataclasses via their dict)."""
    if hasattr(data, "as_dict"):
        data = data.as_dict()
    print(json.dumps(data, indent=2, ensure_ascii=False))


def skip_cloud(step: int | str, language: str) -> None:
    """Say in one line, in the notebook's language, that a cloud step was skipped and why."""
    print(text(SKIPPED_LOGIN, language) if step == "login" else text(SKIPPED_STEP, language, step=step))


def show_config(path: Path) -> None:
    """Print a wrangler config with the account ID hidden."""
    print_json(redacted(json.loads(Path(path).read_text())))


def show_source(name: str) -> Any:
    """The Worker source file `worker/src/<name>`, highlighted in a notebook."""
    from IPython.display import Code

    return Code(filename=str(WORKER_SRC / name), language="javascript")


def wrangler_version(run: RunFolder) -> str:
    """The version the pinned wrangler reports (`wrangler --version`)."""
    result = run_wrangler("--version", cwd=run.root, echo=None, timeout=60)
    return result.output.strip().splitlines()[-1].strip()


def start_server(run: RunFolder, port: int = 0, log_name: str = "dev.log") -> DevServer:
    """Start `wrangler dev` for the run; a server this kernel still runs for the run is stopped first."""
    previous = _SERVERS.pop(run.root, None)
    if previous is not None:
        previous.stop()
    server = start_dev_server(run, port=port, log_name=log_name)
    _SERVERS[run.root] = server
    return server


def show_decisions(decisions: Iterable[Decision]) -> None:
    """One line a request, sorted by requestId: HTTP status, decision, reserved after it."""
    for row in decision_table(decisions):
        retry = f"  ({row['attempts']} attempts)" if row["attempts"] > 1 else ""
        print(f"{row['requestId']:<24} {row['http']}  {row['status']:<9} reserved={row['reserved']}{retry}")


def decision_of(decisions: Iterable[Decision], request_id: str) -> Decision:
    """The decision for one requestId of a burst."""
    for decision in decisions:
        if decision.request_id == request_id:
            return decision
    raise KeyError(f"{request_id} was not part of the burst")


def show_race(race: Race, language: str) -> None:
    """The race in numbers: answers, confirmed seats and the durable counter, per Worker."""
    print(f"{'':<40} {'accepted':>8} {'rejected':>8} {'seats':>6} {'reserved':>8}")
    for key, burst in (("naive", race.naive), ("atomic", race.atomic)):
        facts = burst.facts()
        print(f"{label(key, language):<40} {facts['accepted']:>8} {facts['rejected']:>8} "
              f"{facts['acceptedSeats']:>6} {facts['durableReserved']:>8}")


def plot_race(race: Race, language: str) -> None:
    """Show the naive and the atomic burst as timelines side by side."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    fig = plot_bursts({label("naive", language): race.naive.decisions,
                       label("atomic", language): race.atomic.decisions}, language)
    display(fig)
    plt.close(fig)


def write_report(run: RunFolder, **data: Any) -> dict[str, Any]:
    """Write report.json into the run folder (read by `./lab run`) and return it."""
    report = {"run": run.name, **data}
    (run.root / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
