"""The main job: papermill runs each language's notebook, several at once, with non-default parameters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from reservation_lab.authoring.papermill_run import run_course
from reservation_lab.cloudflare_double.scenarios import EMAIL
from reservation_lab.errors import LabError
from tests.conftest import GERMAN_BURST, CourseRun
from tests.support import english_lines, output_text

STRESS_ROUNDS = 3  # the port race once failed this on a fresh clone: several rounds show it is gone


def test_papermill_runs_with_a_larger_burst(german_run: CourseRun) -> None:
    """`./lab run` with burst 25 on another workshop: the German run passes and also runs steps 5-7 as the rehearsal
    (see assert_the_rehearsal_ran). The suite's one run of it (tests/conftest.py), shared with the command line's and
    the announced commands' tests; learners running at once are the class drill's (tests/classroom/test_drill.py)."""
    assert german_run.returncode == 0, german_run.stdout[-3000:] + german_run.stderr[-3000:]
    assert_the_run_passed(german_run.root, "de", GERMAN_BURST, german_run.stdout)
    assert_the_rehearsal_ran(german_run.root, GERMAN_BURST)


@pytest.mark.slow
@pytest.mark.stress
@pytest.mark.parametrize("round_", range(1, STRESS_ROUNDS + 1))
def test_papermill_runs_three_languages_at_once(tmp_path: Path, round_: int) -> None:
    """Three at once (de, pt, es: own workdirs, ports and Worker names), burst 25, the German one with the rehearsal."""
    procs = {}
    for language in ("de", "pt", "es"):
        rehearsal = ["--cloud-rehearsal"] if language == "de" else []
        procs[language] = subprocess.Popen(
            [sys.executable, "-m", "reservation_lab", "run", "--language", language, "--burst-size", "25",
             "--workshop", f"big-day-{language}", "--workdir", str(tmp_path / language), "--no-experiments",
             *rehearsal], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
    for language, proc in procs.items():
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, out[-3000:]
        assert_the_run_passed(tmp_path / language, language, 25, out)
    assert_the_rehearsal_ran(tmp_path / "de", 25)
    ports = {json.loads((tmp_path / lang / "report.json").read_text())["run"] for lang in procs}
    assert len(ports) == len(procs), "each run must have its own Worker name"


def assert_the_run_passed(root: Path, language: str, burst_size: int, out: str) -> None:
    """The report's numbers for a burst of `burst_size`, the injected parameters, no English line in the outputs."""
    report = json.loads((root / "report.json").read_text())
    rejected = burst_size - 4
    assert report["summary"] == {"accepted": 4, "rejected": rejected, "highestReserved": 4}
    assert report["final_status"] == {"capacity": 4, "reserved": 4, "acceptedRequests": 4,
                                      "rejectedRequests": rejected + 1, "acceptedSeats": 4}
    assert report["status_after_restart"] == report["status_after_burst"]
    assert report["replayed"] is True and report["cloud"] == ("rehearsal" if language == "de" else False)
    executed = nbformat.read(root / f"concurrent-reservations.{language}.ipynb", as_version=4)
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in executed.cells)
    english = {c.id: lines for c in executed.cells if c.cell_type == "code" and (lines := english_lines(
        output_text(c)))}
    assert english == {}, f"{language}: English lines in the executed notebook"
    assert f"Invariant summary ({'rehearsal' if language == 'de' else 'local'}, notebook {language})" in out


def test_unknown_language_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LabError, match="choose one of"):
        run_course(language="fr", workdir=tmp_path)
    assert not (tmp_path / "report.json").exists()


def test_cloud_mode_without_cloudflare_stops_at_login(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      offline_home: None) -> None:
    """cloud = True with Cloudflare unreachable: the login cell fails loudly and no report is written."""
    from reservation_lab.runtime.ports import free_port

    monkeypatch.setenv("WRANGLER_AUTH_DOMAIN", f"127.0.0.1:{free_port()}")  # device login fails fast, online or not
    with pytest.raises(LabError, match=r"wrangler login --device --browser=false --scopes [a-z_: ]+` failed"):
        run_course(language="es", workdir=tmp_path / "run", cloud=True, log_output=False)
    assert not (tmp_path / "run" / "report.json").exists()


def assert_the_rehearsal_ran(root: Path, burst_size: int) -> None:
    """cloud = "rehearsal": steps 5-7 ran for real (the pinned wrangler, workerd, the verifier) against the
    Cloudflare double; every assertion of the cloud cells held, and no token or account ID is left behind."""
    import re

    executed = nbformat.read(root / "concurrent-reservations.de.ipynb", as_version=4)
    shown = {c.id: output_text(c) for c in executed.cells if c.cell_type == "code"}
    run = json.loads((root / "report.json").read_text())["run"]
    assert "(Generalprobe) [" in shown["login"] and "Successfully logged in." in shown["login"]
    assert f'"accepted": 4,\n  "rejected": {burst_size - 4}' in shown["cloud-compare"]
    assert "Deleted: WorkshopReservations" in shown["cleanup-deploy"]
    assert f"Successfully deleted {run}" in shown["cleanup-delete"]
    assert shown["cloud-verify"].count("PASS: deployed") == 1 and "PASS: deployed" in shown["redeploy-verify"]
    assert "PASS: deleted" in shown["cleanup-verify"] and '"loggedIn": false' in shown["after-logout"]
    # the rehearsal plays a fresh free account (`<e-mail>'s Account`): step 1 passed with the notebook's defaults
    assert "\"<Ihre E-Mail-Adresse>'s Account\"" in shown["login"] and "das Lab verwendet es" in shown["login"]
    account = re.search(r'"account_id": "(\w+)"', (root / "wrangler.jsonc").read_text()).group(1)
    everything = "".join(shown.values())
    assert account not in everything and EMAIL not in everything and "example.invalid" not in everything
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    assert [p for p in files if re.search(rb"double-[\w-]{20,}", p.read_bytes())] == []  # no token of the double
    assert [p for p in files if EMAIL.encode() in p.read_bytes()] == []  # no e-mail in any file the run leaves
    seeds_configs = {root / "wrangler.jsonc", root / "wrangler.cleanup.jsonc"}  # account_id: the seeds' design
    assert [p for p in files if account.encode() in p.read_bytes() and p not in seeds_configs] == []
