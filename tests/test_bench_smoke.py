"""The benches run: each one's --quick mode exits 0 and prints its ratio lines (no timing is asserted)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from reservation_lab.paths import REPO_ROOT

BENCH = REPO_ROOT / "bench"

# script -> the ratio lines (their names) its --quick run must print
EXPECTED = {
    "bench_burst_fidelity.py": ["package/shell wall ms", "package/shell spread ms", "package/shell in flight (client)",
                                "package/shell in flight (worker log)"],
    "bench_driver_vs_wrk.py": ["package/wrk requests/s c=10"],
    "bench_worker_cost.py": ["reservation/health requests/s c=1", "reservation/health workerd CPU per request c=10",
                             "reservation/health node CPU per request c=10"],
    # --quick measures only the floor (two cold starts, node tests, dry run); the notebook takes too long here.
    "bench_course_time.py": ["dev-server starts/floor"],
    "bench_grade.py": ["grade/cold start guard solution", "grade/cold start guard stub"],
    "bench_site.py": ["site one language/sphinx floor"],
    "bench_compile_cache.py": ["compile cache/none wrangler --version CPU", "compile cache/none dev server start"],
}


def run_quick(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH / script), "--quick"], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=180)


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_bench_quick_runs_and_prints_ratios(script: str) -> None:
    if script == "bench_driver_vs_wrk.py" and shutil.which("wrk") is None:
        pytest.skip("wrk is not installed (Debian/Ubuntu: apt-get install -y wrk); the wrk comparison needs it")
    if script == "bench_burst_fidelity.py" and shutil.which("curl") is None:
        pytest.skip("curl is not installed; the shell burst needs it")
    result = run_quick(script)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    ratios = [line for line in result.stdout.splitlines() if line.startswith("ratio ")]
    for name in EXPECTED[script]:
        assert any(line.startswith(f"ratio {name}: ") for line in ratios), (name, result.stdout[-3000:])
    assert "UNEXPECTED" not in result.stdout, result.stdout
