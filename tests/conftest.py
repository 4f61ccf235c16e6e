"""Shared fixtures: run folders and real `wrangler dev` servers that are proven gone afterwards, one shared German
run of the course for the tests that only read it, and the `quick` and `stress` selections."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from reservation_lab.domain.client import LabClient
from reservation_lab.domain.config import new_run_name, write_wrangler_config
from reservation_lab.domain.runs import RunFolder, create_run_folder, serving
from reservation_lab.paths import RUNS_DIR
from reservation_lab.runtime.devserver import DevServer
from tests.support import lab_processes


@pytest.fixture(autouse=True)
def no_state_across_tests() -> Iterator[None]:
    """A course session started by a test ends with that test (the session is the only state the course keeps)."""
    from reservation_lab.course import session as sessions

    yield
    left = sessions._CURRENT["session"]
    sessions._CURRENT["session"] = None
    if left is not None:
        left.stop()


@pytest.fixture
def run_folder(tmp_path: Path) -> RunFolder:
    run = create_run_folder(tmp_path / "run")
    write_wrangler_config(run)
    return run


@pytest.fixture
def dev_server_factory(run_folder: RunFolder) -> Iterator[Callable[..., DevServer]]:
    """Real dev servers on free loopback ports through domain.runs.serving (the lab's one way to serve a run);
    afterwards each is stopped and proven gone: no process of its group, no watchdog, its port free."""
    with ExitStack() as held:
        def start(run: RunFolder | None = None, **kwargs) -> DevServer:
            return held.enter_context(serving(run or run_folder, **kwargs))

        yield start


@pytest.fixture
def dev_server(dev_server_factory: Callable[..., DevServer]) -> DevServer:
    return dev_server_factory()


@pytest.fixture
def client(dev_server: DevServer) -> Iterator[LabClient]:
    with LabClient(dev_server.base_url) as lab_client:
        yield lab_client


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    """One real dev server for a module whose tests each use workshops of their own names (a workshop is its own
    object and state), stopped and proven gone after the module (domain.runs.serving)."""
    run = create_run_folder(tmp_path_factory.mktemp("shared-server") / "run")
    write_wrangler_config(run)
    with serving(run) as server:
        yield server


@pytest.fixture(scope="module")
def shared_client(shared_server: DevServer) -> Iterator[LabClient]:
    with LabClient(shared_server.base_url) as lab_client:
        yield lab_client


# notebooks, browser, papermill runs, benches: not part of the quick inner loop
# Not in the inner loop (`-m quick`): notebooks, browser and papermill runs, the benches, and the whole-flow runs of
# the drills and of steps 5-7 against the double (each starts several dev servers; they stay in `./lab test`).
NOT_QUICK = ("tests/course/", "tests/authoring/", "tests/teaching/", "tests/website/", "tests/jupyter/",
             "tests/test_cli.py", "tests/test_bench_smoke.py", "notebooks/", "tests/drills/",
             "tests/cloudflare_double/test_lab_on_the_double.py", "tests/cloudflare_double/test_cleanup.py",
             "tests/classroom/test_drill.py", "tests/classroom/test_learner.py")
GERMAN_RUN_RECORD = "german-run.json"
GERMAN_BURST, GERMAN_WORKSHOP = 25, "big-day-de"  # the shared German run: not the notebook's defaults
GERMAN_RUN = ("--language", "de", "--burst-size", str(GERMAN_BURST), "--workshop", GERMAN_WORKSHOP,
              "--cloud-rehearsal", "--no-experiments")
# The longest files go to the workers first, so neither waits alone at the end (pytest-xdist sends each file's
# tests to one worker: --dist loadfile --no-loadscope-reorder; nbval's cells of a notebook share one kernel).
LONGEST_FIRST = ("tests/classroom/test_drill.py", "tests/authoring/test_papermill_run.py", "notebooks/",
                 "tests/classroom/test_learner.py", "tests/course/test_browser.py",
                 "tests/course/test_binder.py", "tests/teaching/test_nbgrader_course.py", "tests/exercises/",
                 "tests/drills/", "tests/course/", "tests/cloudflare_double/")


def relative_path(item: pytest.Item) -> str:
    from reservation_lab.paths import REPO_ROOT

    return Path(str(item.path)).resolve().relative_to(REPO_ROOT).as_posix()


def rank(group: str) -> int:
    return next((index for index, start in enumerate(LONGEST_FIRST) if group.startswith(start)), len(LONGEST_FIRST))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the unit-level tests `quick` (`./lab test -m quick`: the inner loop), put the longest files first, and
    leave the `stress` repeats out unless the -m expression names them (`./lab test -m stress`, or
    `-m "stress or not stress"` for everything)."""
    for item in items:
        if not relative_path(item).startswith(NOT_QUICK):
            item.add_marker(pytest.mark.quick)
    items.sort(key=lambda item: rank(relative_path(item)))  # stable: a file's tests keep their order
    if "stress" in (config.option.markexpr or ""):
        return
    left_out = [item for item in items if item.get_closest_marker("stress")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not item.get_closest_marker("stress")]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After the suite no wrangler dev, workerd or watchdog of this checkout may be left running (checked once, by
    the process that ran or supervised every test: not by an xdist worker while the other still runs)."""
    import time

    if hasattr(session.config, "workerinput"):
        return
    record = session.config._tmp_path_factory.getbasetemp() / GERMAN_RUN_RECORD  # type: ignore[attr-defined]
    if record.exists():  # the workers' shared German run
        shutil.rmtree(json.loads(record.read_text())["root"], ignore_errors=True)

    deadline = time.monotonic() + 10
    left = lab_processes()
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = lab_processes()
    if left:
        print("\nLEAK: processes left after the test session:\n" + "\n".join(left))
        session.exitstatus = 1


@pytest.fixture
def offline_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A HOME without wrangler credentials, and no credentials in the environment."""
    for var in ("CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY", "CLOUDFLARE_EMAIL", "CLOUDFLARE_ACCOUNT_ID"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))


@dataclass(frozen=True)
class CourseRun:
    """`python -m reservation_lab run` of the German notebook with non-default parameters (GERMAN_RUN: a burst of
    25 on the workshop `big-day-de`) and steps 5-7 as the rehearsal, the experiments skipped (nbval, the browser test
    and the workbench tests run them). One run, read by the papermill test, the command line's and the announced
    commands' tests (a Run All costs ~20 CPU-s; the suite's budget: bench/RESULTS.md)."""

    root: Path
    stdout: str
    stderr: str
    returncode: int

    @property
    def report(self) -> dict:
        return json.loads((self.root / "report.json").read_text())

    @property
    def notebook(self) -> nbformat.NotebookNode:
        return nbformat.read(self.root / "concurrent-reservations.de.ipynb", as_version=4)


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every process of this test session sees: the session's base folder, which xdist's workers have as
    the parent of theirs."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def german_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CourseRun]:
    """Run once per test session, by whichever worker asks first (the others wait on a lock and read its record).
    The run folder lives in .runs/ (so announced folders are shown relative to the repository) and is removed
    afterwards, exactly that folder (by the fixture, or under xdist by the session's end). The command runs from an
    unrelated folder, as a course author may."""
    shared = shared_folder(tmp_path_factory)
    record = shared / GERMAN_RUN_RECORD
    with (shared / "german-run.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            root = RUNS_DIR / new_run_name()
            command = [sys.executable, "-m", "reservation_lab", "run", "--workdir", str(root), *GERMAN_RUN]
            proc = subprocess.run(command, capture_output=True, text=True, timeout=400,
                                  cwd=tmp_path_factory.mktemp("elsewhere"))
            record.write_text(json.dumps({"root": str(root), "stdout": proc.stdout, "stderr": proc.stderr,
                                          "returncode": proc.returncode}))
    kept = json.loads(record.read_text())
    yield CourseRun(Path(kept["root"]), kept["stdout"], kept["stderr"], kept["returncode"])
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        shutil.rmtree(kept["root"], ignore_errors=True)
