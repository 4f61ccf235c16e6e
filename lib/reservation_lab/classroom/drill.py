"""The class drill: N simulated learners run the lab at once on one JupyterHub, isolated and measured.

First one learner alone (the baseline, measured in the same run), then the class: learners start staggered over
`ramp` seconds, languages rotate de/pt/es, every other learner uses the notebook's default workshop name (so several
share it, as a class would). Each learner's server process tree (server, kernel, every wrangler/workerd it starts)
is sampled for peak PSS and CPU seconds (classroom.footprint), the machine's memory too. The report: a table, the
class's p50/p95/max Run All time against the baseline, `class-report.json` and a progress plot (cells done against
seconds). Afterwards nothing the drill started may be left: no hub, proxy, server, kernel, wrangler or workerd.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reservation_lab.classroom.footprint import Sampler, machine_memory_used, process_tree, sample
from reservation_lab.classroom.hub import HubAPI, LocalHub, existing_hub
from reservation_lab.classroom.learner import Learner, Outcome
from reservation_lab.course.parameters import DEFAULTS
from reservation_lab.i18n import COURSE_LANGUAGES
from reservation_lab.runtime.processes import (
    ProcessInfo,
    environment_of,
    live_processes,
    this_process_and_its_ancestors,
)
from reservation_lab.runtime.waiting import wait_until

MIB = 1024 * 1024
IDLE_AFTER = 3.0  # seconds after a Run All before its idle footprint is read
SAMPLE_EVERY = 1.0  # seconds between two samples of a learner's tree: one costs ~40 ms of CPU (PSS of ~12 processes),
# at 0.5 s four learners' samplers took a sixth of the 2-core machine they measured
LEFT_BEHIND = ("jupyterhub", "configurable-http-proxy", "jupyterhub-singleuser", "wrangler", "workerd")


@dataclass
class Measured:
    """One learner's outcome with their server's footprint."""

    outcome: Outcome
    peak_pss_mib: float = 0.0
    cpu_seconds: float = 0.0
    processes: int = 0
    idle_pss_mib: float = 0.0  # server and kernel after the Run All, the notebook still open (IDLE_AFTER seconds)

    def as_dict(self) -> dict[str, Any]:
        return {**self.outcome.as_dict(), "peak_pss_mib": round(self.peak_pss_mib, 1),
                "idle_pss_mib": round(self.idle_pss_mib, 1),
                "cpu_seconds": round(self.cpu_seconds, 1), "peak_processes": self.processes}


@dataclass
class ClassReport:
    """The drill's result: the baseline learner, the class, the machine's peak memory, what was left behind."""

    learners: int
    ramp: float
    solo: Measured | None
    class_: list[Measured] = field(default_factory=list)
    machine_peak_mib: float = 0.0
    left_behind: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        everyone = ([self.solo] if self.solo else []) + self.class_
        return all(m.outcome.passed for m in everyone) and not self.left_behind

    def times(self) -> dict[str, float]:
        seconds = sorted(m.outcome.run_all_seconds for m in self.class_ if m.outcome.passed)
        if not seconds:
            return {}
        p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
        solo = self.solo.outcome.run_all_seconds if self.solo else 0.0
        found = {"solo": solo, "p50": statistics.median(seconds), "p95": p95, "max": seconds[-1]}
        return {k: round(v, 1) for k, v in found.items()} | (
            {"p95_over_solo": round(p95 / solo, 2)} if solo else {})

    def as_dict(self) -> dict[str, Any]:
        return {"learners": self.learners, "ramp_seconds": self.ramp, "passed": self.passed,
                "solo": self.solo.as_dict() if self.solo else None, "class": [m.as_dict() for m in self.class_],
                "run_all_seconds": self.times(), "machine_peak_mib": round(self.machine_peak_mib),
                "left_behind": self.left_behind}


async def measure(hub: HubAPI, learner: Learner, delay: float = 0.0) -> Measured:
    """Run one learner after `delay` seconds, sampling their server's process tree once it exists."""
    await asyncio.sleep(delay)
    task = asyncio.create_task(learner.run())
    while not task.done() and learner.outcome.server_pid is None:
        await asyncio.sleep(0.2)
    measured = Measured(learner.outcome)

    async def idle() -> None:
        await asyncio.sleep(IDLE_AFTER)
        if learner.outcome.server_pid is not None:
            measured.idle_pss_mib = sample(process_tree(learner.outcome.server_pid)).pss_bytes / MIB

    learner.after_run_all = idle
    if learner.outcome.server_pid is None:
        await task
        return measured
    with Sampler(learner.outcome.server_pid, interval=SAMPLE_EVERY) as sampler:
        await task
    measured.peak_pss_mib = sampler.peak_pss_bytes / MIB
    measured.cpu_seconds = sampler.cpu_seconds_during  # the server existed before: only what this Run All used
    measured.processes = sampler.peak_processes
    return measured


def plan(learners: int, overrides: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Each learner's name, language, workshop and parameter overrides: languages rotate, workshop names repeat."""
    return [(f"learner-{n:02d}", COURSE_LANGUAGES[(n - 1) % len(COURSE_LANGUAGES)],
             DEFAULTS["workshop"] if n % 2 else f"workshop-{n:02d}", overrides) for n in range(1, learners + 1)]


async def _class(hub: HubAPI, learners: int, ramp: float, overrides: dict[str, Any]) -> list[Measured]:
    planned = plan(learners, overrides)
    step = ramp / max(1, learners - 1) if learners > 1 else 0.0
    return list(await asyncio.gather(*(measure(hub, Learner(hub, *spec), delay=i * step)
                                       for i, spec in enumerate(planned))))


def run_class(learners: int, folder: Path, ramp: float = 0.0, hub_url: str | None = None,
              overrides: dict[str, Any] | None = None, solo: bool = True) -> ClassReport:
    """The whole drill (see the module docstring); writes class-report.json and progress.png into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    overrides = overrides or {}
    report = ClassReport(learners=learners, ramp=ramp, solo=None)
    local = LocalHub(folder / "hub") if hub_url is None else None
    hub = local.api if local else existing_hub(hub_url or "")
    peak = [machine_memory_used()]
    try:
        if solo:
            name, language, workshop, extra = plan(1, overrides)[0]
            report.solo = asyncio.run(measure(hub, Learner(hub, "solo-01", language, workshop, extra)))
            _stop_servers(hub, ["solo-01"])
        report.class_ = asyncio.run(_watch_machine(_class(hub, learners, ramp, overrides), peak))
        _stop_servers(hub, [m.outcome.name for m in report.class_])
    finally:
        if local is not None:
            local.close()
    report.machine_peak_mib = peak[0] / MIB
    report.left_behind = left_behind(folder)
    (folder / "class-report.json").write_text(json.dumps(report.as_dict(), indent=2))
    plot_progress(report, folder / "progress.png")
    return report


async def _watch_machine(work: Any, peak: list[int]) -> Any:
    """Run `work`, keeping the machine's peak memory in use meanwhile."""
    task = asyncio.ensure_future(work)
    while not task.done():
        peak[0] = max(peak[0], machine_memory_used())
        await asyncio.sleep(0.5)
    return await task


def _stop_servers(hub: HubAPI, names: list[str]) -> None:
    for name in names:
        try:
            hub.stop_server(name)
        except Exception:  # noqa: BLE001, S112 - the hub's own shutdown stops it too; what is left is checked after
            continue


def left_behind(folder: Path, seconds: float = 30.0) -> list[str]:
    """Processes the drill started that are still alive after `seconds` (none should be): the hub, its proxy and
    everything whose folder or HOME is in the drill's folder (servers, kernels, their wrangler and workerd)."""
    marker = str(folder.resolve())

    def started_here(process: ProcessInfo) -> bool:
        if marker in process.cmdline or process.cwd.startswith(marker):
            return True
        return any(word in process.cmdline for word in LEFT_BEHIND) and \
            environment_of(process.pid).get("HOME", "").startswith(marker)

    above = this_process_and_its_ancestors()  # e.g. `timeout 900 ./lab class --folder X` names the folder too

    def ours() -> list[str]:
        return [f"{p.pid} {p.cmdline[:120]}" for p in live_processes() if p.pid not in above and started_here(p)]

    wait_until(lambda: not ours(), seconds, interval=0.5)
    return ours()


def table(report: ClassReport) -> str:
    """The per-learner table (markdown) and the class's line."""
    rows = ["| learner | language | workshop | course by | passed | Run All s | peak PSS MiB | idle PSS MiB | CPU s "
            "| failed |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for m in ([report.solo] if report.solo else []) + report.class_:
        o = m.outcome
        failed = "" if o.passed else f"cell {o.failed_cell}: {o.error}"[:80]
        rows.append(f"| {o.name} | {o.language} | {o.workshop} | {o.got_course_by} | {o.passed} | "
                    f"{o.run_all_seconds:.1f} | {m.peak_pss_mib:.0f} | {m.idle_pss_mib:.0f} | {m.cpu_seconds:.1f} | "
                    f"{failed} |")
    rows.append(f"\nclass of {report.learners}: {report.times()}; machine peak {report.machine_peak_mib:.0f} MiB; "
                f"left behind: {report.left_behind or 'nothing'}")
    return "\n".join(rows)


def plot_progress(report: ClassReport, path: Path) -> None:
    """Cells done against seconds since each learner began, one line a learner."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for m in ([report.solo] if report.solo else []) + report.class_:
        done = m.outcome.cells_done
        ax.step([0.0, *done], range(len(done) + 1), where="post", label=m.outcome.name,
                linestyle="--" if m is report.solo else "-")
    ax.set_xlabel("seconds since the learner logged in")
    ax.set_ylabel("code cells done")
    ax.set_title(f"{report.learners} learners on one JupyterHub")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
