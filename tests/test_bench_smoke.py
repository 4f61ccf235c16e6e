"""The benches run. In `./lab test`: every bench imports what it measures and answers `--help` (a renamed helper or
option fails here). Under `-m stress`: each one's `--quick` mode exits 0 and prints its ratio lines (no timing is
asserted); those runs start ~20 dev servers and wrangler commands, a benchmark's work rather than a test's, so the
default run keeps the suite within its time (bench/RESULTS.md)."""

from __future__ import annotations

import importlib.util
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


def test_every_bench_imports_and_answers_help(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """In one process: each bench module is imported from bench/ (as `python bench/<script>` does) and its
    main(["--help"]) prints its usage. A bench whose import fails, or whose main() is gone, fails here."""
    monkeypatch.syspath_prepend(str(BENCH))
    scripts = sorted(path.name for path in BENCH.glob("bench_*.py"))
    assert set(EXPECTED) <= set(scripts) and len(scripts) >= 10, scripts
    for script in scripts:
        spec = importlib.util.spec_from_file_location(f"bench_smoke_{script[:-3]}", BENCH / script)
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up there
        spec.loader.exec_module(module)
        with pytest.raises(SystemExit) as ended:
            module.main(["--help"])
        helped = capsys.readouterr().out
        assert ended.value.code == 0 and helped.startswith("usage: "), (script, helped)
        assert script not in EXPECTED or "--quick" in helped, f"{script}: the smoke run needs --quick"


def run_quick(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH / script), "--quick"], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=180)


@pytest.mark.stress
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
