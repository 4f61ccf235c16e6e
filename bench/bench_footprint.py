"""What one learner costs: a Run All of the lab and of the exercises notebook, measured as a process tree.

Run (with the course's venv): python bench/bench_footprint.py [--quick] [--timeline] [--language de] [--interval 0.25]

Each notebook runs as `./lab mark` runs a submission: papermill's command line with the course's engine
(`python -m reservation_lab.jupyter.papermill_engine IN OUT -k reservation-lab --engine reservation-lab`, kernels on
socket files), the notebook's own folder as the kernel's cwd, a run folder in a temporary directory and the
notebook's defaults (`./lab run`'s: the lab in local mode with `pause_before_cleanup = False`; the exercises with
`solutions = True`, graded with their defaults). `classroom.footprint.run_sampled` samples the papermill process and
every descendant (kernel, wrangler's node, workerd, esbuild, watchdogs, node tests) every --interval seconds: wall
time, CPU seconds (the tree's, reaped children included), peak PSS and peak processes. The baseline, measured in the
same run: a notebook of one trivial cell on the same kernel (the cost of papermill and the kernel alone); the table
shows ratios against it. Then, for each notebook, what held the peak: PSS by role at the peak sample, and each
role's own peak over the run (`--timeline`: the samples over time). `--quick` runs the baseline and the lab notebook
without its experiments.
Linux (or WSL) only: PSS, and the CPU of reaped children, are Linux's (psutil reads them there; on macOS the
footprint would be USS and miss the children's CPU, so the table would not compare).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import nbformat
from common import load_line, machine_line, print_ratio

from reservation_lab.authoring.builder import EXERCISES, LAB, Notebook, notebook_path
from reservation_lab.classroom.footprint import ProcessFootprint, Sample, Sampler, run_sampled
from reservation_lab.course.parameters import DEFAULTS, EXERCISE_DEFAULTS
from reservation_lab.jupyter.kernelspec import ensure_kernel
from reservation_lab.jupyter.socket_kernels import papermill_command
from reservation_lab.runtime.processes import processes_mentioning

MIB = 2**20
TIMEOUT = 1200  # seconds one notebook may run


@dataclass
class Measured:
    """One notebook's run: what the Sampler saw, the exact CPU from the kernel's rusage, the sampler's own CPU."""

    name: str
    sampler: Sampler
    rusage_cpu: float  # CPU of the papermill process and every descendant it (transitively) reaped
    sampler_cpu: float  # CPU this bench process spent while the notebook ran (mostly the sampling thread)


def baseline_notebook(folder: Path) -> Path:
    """A notebook of one trivial cell on the course's kernel: what papermill and the kernel cost alone."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": ensure_kernel(), "display_name": "Reservation lab (Python 3)",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("1 + 1")]
    path = folder / "baseline.ipynb"
    nbformat.write(nb, path)
    return path


def measure(name: str, source: Path, cwd: Path, parameters: dict, interval: float) -> Measured:
    """One papermill run of `source` in a temporary folder, its process tree sampled; nothing may be left running."""
    with tempfile.TemporaryDirectory(prefix="bench-footprint-") as tmp:
        folder = Path(tmp)
        command = papermill_command(str(source), str(folder / source.name), "-k", ensure_kernel(), "--cwd", str(cwd),
                                    "--no-progress-bar")
        for key, value in {**parameters, "workdir": str(folder / "run")}.items() if parameters else ():
            command += ["-y", f"{key}: {json.dumps(value)}"]
        before_children, before_own = os.times(), time.process_time()
        with open(folder / "papermill.log", "w") as log:
            code, sampler = run_sampled(command, interval=interval, timeout=TIMEOUT, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        after = os.times()
        sampler_cpu = time.process_time() - before_own
        rusage = (after.children_user + after.children_system
                  - before_children.children_user - before_children.children_system)
        if code != 0:
            raise SystemExit(f"{name}: papermill exited {code}\n{(folder / 'papermill.log').read_text()[-3000:]}")
        left = processes_mentioning(tmp)
    if left:
        raise SystemExit(f"{name}: the notebook left processes running: {left}")
    print(f"{name}: {sampler.wall_seconds:.1f} s, CPU {sampler.cpu_seconds:.1f} s (rusage {rusage:.1f} s), "
          f"peak PSS {sampler.peak_pss_bytes / MIB:.0f} MiB ({sampler.peak.memory_source}), "
          f"peak {sampler.peak_processes} processes, {len(sampler.samples)} samples", flush=True)
    return Measured(name, sampler, rusage, sampler_cpu)


# ---------------------------------------------------------------------------------------------- what holds memory


def module_of(argv: tuple[str, ...]) -> str:
    """The `-m` module or the script a Python command line runs ('' when neither)."""
    for index, part in enumerate(argv[1:], 1):
        if part == "-m" and index + 1 < len(argv):
            return argv[index + 1]
        if part == "-c":
            return "-c"
        if not part.startswith("-"):
            return os.path.basename(part)
    return ""


def role(member: ProcessFootprint) -> str:
    """The process's part in a Run All, from its executable's name and command line."""
    executable = os.path.basename(member.argv[0]) if member.argv else member.name
    if member.name == "workerd" or executable == "workerd":
        return "workerd"
    if executable.startswith("node") or member.name.startswith("node"):
        return "node (wrangler)" if any("wrangler" in part for part in member.argv) else "node (other)"
    if "esbuild" in (member.name, executable):
        return "esbuild"
    if executable.startswith("python") or member.name.startswith("python"):
        module = module_of(member.argv)
        if module == "ipykernel_launcher":
            return "python kernel"
        if "papermill" in module:
            return "papermill"
        if "watchdog" in module:
            return "python watchdog"
        return f"python ({module or '?'})"
    return member.name


def by_role(sample: Sample) -> dict[str, tuple[int, int, int]]:
    """{role: (processes, PSS bytes, RSS bytes)} of one sample, largest PSS first."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for member in sample.members:
        entry = totals[role(member)]
        entry[0] += 1
        entry[1] += member.pss_bytes
        entry[2] += member.rss_bytes
    return dict(sorted(((name, tuple(v)) for name, v in totals.items()), key=lambda item: -item[1][1]))


def role_peaks(samples: list[Sample]) -> dict[str, tuple[int, int]]:
    """{role: (its highest PSS in any one sample, its most processes in any one sample)} over the run."""
    peaks: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for each in samples:
        for name, (count, pss, _) in by_role(each).items():
            peaks[name][0] = max(peaks[name][0], pss)
            peaks[name][1] = max(peaks[name][1], count)
    return {name: (pss, count) for name, (pss, count) in sorted(peaks.items(), key=lambda item: -item[1][0])}


def print_breakdown(measured: Measured) -> None:
    sampler = measured.sampler
    peak = sampler.peak
    at = peak.time - sampler.samples[0].time
    print(f"\n{measured.name}: the peak ({peak.pss_bytes / MIB:.0f} MiB PSS, {peak.processes} processes) at "
          f"{at:.1f} s of {sampler.wall_seconds:.1f} s\n")
    print("| role | processes at the peak | PSS MiB at the peak | share | RSS MiB at the peak "
          "| role's own peak PSS MiB (processes) |")
    print("| --- | --- | --- | --- | --- | --- |")
    peaks = role_peaks(sampler.samples)
    shown = by_role(peak)
    for name in [*shown, *(name for name in peaks if name not in shown and peaks[name][0] >= MIB)]:
        count, pss, rss = shown.get(name, (0, 0, 0))
        own_pss, own_count = peaks[name]
        print(f"| {name} | {count} | {pss / MIB:.0f} | {100 * pss / peak.pss_bytes:.0f} % | {rss / MIB:.0f} | "
              f"{own_pss / MIB:.0f} ({own_count}) |")
    print("\nlargest processes at the peak:")
    for member in sorted(peak.members, key=lambda m: -m.pss_bytes)[:8]:
        print(f"  {member.pss_bytes / MIB:6.0f} MiB PSS {member.rss_bytes / MIB:6.0f} MiB RSS  {role(member):18} "
              f"pid {member.pid}: {' '.join(member.argv)[:110]}")


def print_timeline(measured: Measured, step: int = 50 * MIB) -> None:
    """The run's samples, one line whenever the process count changes or PSS moved by `step` since the last line."""
    samples = measured.sampler.samples
    print(f"\n{measured.name}: timeline (s, PSS MiB, processes, PSS MiB by role)")
    last: Sample | None = None
    for each in samples:
        if last is None or each.processes != last.processes or abs(each.pss_bytes - last.pss_bytes) >= step \
                or each is measured.sampler.peak:
            roles = " ".join(f"{name}={pss / MIB:.0f}" for name, (_, pss, _) in by_role(each).items())
            mark = "  <- peak" if each is measured.sampler.peak else ""
            print(f"  {each.time - samples[0].time:6.1f} {each.pss_bytes / MIB:5.0f} {each.processes:3}  {roles}{mark}")
            last = each


# ---------------------------------------------------------------------------------------------- the table


def print_table(runs: list[Measured]) -> None:
    base = runs[0].sampler
    print("\n| run | wall s | CPU s (rusage) | CPU/wall | peak PSS MiB | peak processes | machine Δ MiB (all) | "
          "wall × baseline | CPU × baseline | PSS × baseline |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for run in runs:
        s = run.sampler
        machine = (s.machine_peak_bytes - s.machine_start_bytes) / MIB
        print(f"| {run.name} | {s.wall_seconds:.1f} | {s.cpu_seconds:.1f} ({run.rusage_cpu:.1f}) | "
              f"{s.cpu_seconds / s.wall_seconds:.2f} | {s.peak_pss_bytes / MIB:.0f} | {s.peak_processes} | "
              f"{machine:.0f} | {s.wall_seconds / base.wall_seconds:.1f} | {s.cpu_seconds / base.cpu_seconds:.1f} | "
              f"{s.peak_pss_bytes / base.peak_pss_bytes:.1f} |")
    sampling = sum(run.sampler_cpu for run in runs) / sum(run.sampler.wall_seconds for run in runs)
    print(f"\nthe sampler's own CPU: {100 * sampling:.1f} % of one core (this process, while the notebooks ran)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="the baseline and the lab notebook without its experiments only")
    parser.add_argument("--language", default="de")
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between samples (default 0.25)")
    parser.add_argument("--timeline", action="store_true", help="also print each notebook's samples over time")
    args = parser.parse_args(argv)
    if not sys.platform.startswith("linux"):
        raise SystemExit("bench_footprint.py measures PSS, which only Linux reports: run it on Linux (or WSL).")
    print(machine_line())
    print(load_line("before"), flush=True)

    def notebook(which: Notebook) -> tuple[Path, Path]:
        path = notebook_path(args.language, which)
        return path, path.parent

    lab_parameters = {**DEFAULTS, "pause_before_cleanup": False, "language": args.language}
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-footprint-nb-") as tmp:
        source, cwd = notebook(LAB)
        runs.append(measure("baseline: one trivial cell", baseline_notebook(Path(tmp)), cwd, {}, args.interval))
        if args.quick:
            runs.append(measure(f"lab ({args.language}), experiments = False", source, cwd,
                                {**lab_parameters, "experiments": False}, args.interval))
        else:
            runs.append(measure(f"lab ({args.language})", source, cwd, lab_parameters, args.interval))
            source, cwd = notebook(EXERCISES)
            runs.append(measure(f"exercises ({args.language}), solutions = True", source, cwd,
                                {**EXERCISE_DEFAULTS, "solutions": True, "language": args.language}, args.interval))
    print(load_line("after"))
    print_table(runs)
    for run in runs[1:]:
        print_breakdown(run)
        if args.timeline:
            print_timeline(run)
    print()
    base = runs[0].sampler
    for run in runs[1:]:
        s = run.sampler
        print_ratio(f"{run.name}/baseline peak PSS", s.peak_pss_bytes / MIB, base.peak_pss_bytes / MIB, " MiB")
        print_ratio(f"{run.name}/baseline CPU", s.cpu_seconds, base.cpu_seconds, " s")
        print_ratio(f"{run.name}/baseline wall", s.wall_seconds, base.wall_seconds, " s")


if __name__ == "__main__":
    main()
