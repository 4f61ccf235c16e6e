"""classroom: a class of learners on a real JupyterHub (loopback), isolated, measured, and nothing left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
NO_EXPERIMENTS = {"experiments": False}  # the five experiments are proven by the notebooks' own runs


def test_lab_class_with_four_learners_passes_isolated_and_leaves_nothing(tmp_path: Path) -> None:
    """`./lab class --learners 4` (without the experiments): one learner alone, then four at once, languages
    rotating, two of them on the same workshop name; every learner passes every check of the notebook."""
    done = subprocess.run([sys.executable, "-m", "reservation_lab", "class", "--learners", "4", "--no-experiments",
                           "--folder", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((tmp_path / "class-report.json").read_text())
    learners = report["class"]
    assert report["passed"] and report["left_behind"] == [] and len(learners) == 4
    assert [m["language"] for m in learners] == ["de", "pt", "es", "de"]
    assert [m["workshop"] for m in learners].count("launch-day") == 2  # same name, separate state: both pass
    assert all(m["passed"] and m["got_course_by"] == "nbgitpuller" and len(m["cells_done"]) > 40 for m in learners)
    assert len({m["server_pid"] for m in learners}) == 4  # a server of their own each
    assert all(m["peak_pss_mib"] > 100 and m["cpu_seconds"] > 1 for m in [report["solo"], *learners])
    # idle: the server and the kernel after the Run All (no wrangler dev left running), less than the peak
    assert all(50 < m["idle_pss_mib"] < m["peak_pss_mib"] for m in [report["solo"], *learners])
    assert set(report["run_all_seconds"]) >= {"solo", "p50", "p95", "max", "p95_over_solo"}
    assert (tmp_path / "progress.png").stat().st_size > 10_000
    assert "| learner-04 | de |" in done.stdout and "left behind: nothing" in done.stdout
    homes = tmp_path / "hub" / "home"  # started as the deployments do: each learner's runs in their own home
    assert all(len(list((homes / m["name"] / ".reservation-lab" / ".runs").glob("labex-*"))) == 1 for m in learners)
    # no token is left on disk: no hub config, cookie secret or database, no learner server's runtime file
    written = [p for p in tmp_path.rglob("*") if p.is_file() and not is_course_copy(p.relative_to(tmp_path))]
    left = [p.relative_to(tmp_path) for p in written if p.name in ("jupyterhub_config.py", "cookie_secret",
            "jupyterhub.sqlite") or p.name.startswith("jpserver-") or '"token": "' in p.read_text(errors="ignore")]
    assert left == [], left
    hub_log = (tmp_path / "hub" / "jupyterhub.log").read_text()
    assert hub_log.count("Spawning") == 5 and "DummyAuthenticator" in hub_log
    loaded = [line for line in hub_log.splitlines() if "extension was successfully loaded" in line]
    assert sum("jupyterlab |" in line for line in loaded) == 5  # each learner's server, as the deployments start it:
    assert not [line for line in loaded if "nbgrader" in line]  # without nbgrader's server extensions (start.sh)


def is_course_copy(path: Path) -> bool:
    """A file of the course's code as nbgitpuller or the start script copied it into a home (its own tests hold
    sample tokens), not one a run wrote; the learners' runs (.reservation-lab/.runs) are checked."""
    return ("course" in path.parts or ".reservation-lab" in path.parts) and ".runs" not in path.parts


def test_left_behind_names_what_the_drill_left_not_who_started_it(tmp_path: Path) -> None:
    """`timeout 900 ./lab class --folder X`: the wrapper names the folder but is not left behind by the drill; a
    process still running in the folder is."""
    straggler = subprocess.Popen(["sleep", "60"], cwd=tmp_path)
    try:
        program = ("import sys; from pathlib import Path; from reservation_lab.classroom.drill import left_behind; "
                   "print(left_behind(Path(sys.argv[1]), 0.5))")
        wrapper = f'"{sys.executable}" -c "{program}" "{tmp_path}"; true'  # a shell above it, naming the folder
        out = subprocess.run(["sh", "-c", wrapper], capture_output=True, text=True, timeout=60, check=True).stdout
        assert out.strip() == f"['{straggler.pid} sleep 60']"
    finally:
        straggler.kill()
        straggler.wait()
