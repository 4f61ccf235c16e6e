"""Binder / JupyterHub (repo2docker): postBuild in a fresh clone, then a notebook of that clone in its kernel.

The clone is made from this checkout's committed HEAD; postBuild runs with this venv's tools on PATH (as
repo2docker has the environment's), with npm offline (its cache holds the locked packages since ./lab setup),
HOME in a temporary folder. The notebook then runs under papermill from an unrelated folder with the clone's
package first on the path: paths resolve from the package, so it uses the clone's wrangler and Worker.

In `./lab test` the notebook is the learner's copy cut to steps 1-3 without the race (the node tests, the dry run,
one dev server, the burst and its checks, the server stopped): what depends on the clone. The whole notebook from a
copy of the code is what every learner of the class drill runs (tests/classroom/test_drill.py); here it runs whole
under `-m stress`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from reservation_lab.jupyter.kernelspec import KERNEL_NAME
from reservation_lab.jupyter.socket_kernels import papermill_command
from reservation_lab.paths import REPO_ROOT

pytestmark = pytest.mark.slow
# the race (two more dev servers) and step 4's restart: the cloned code is not involved in them
LEFT_OUT = ("race", "race-explain", "race-verdict", "race-plot", "restart", "restart-status", "replay",
            "after-restart", "final-status")
STEPS_1_TO_3 = "stop-server"  # the last cell kept


def cut_to_steps_1_to_3(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    ids = [cell.id for cell in notebook.cells]
    notebook.cells = [cell for cell in notebook.cells[:ids.index(STEPS_1_TO_3) + 1] if cell.id not in LEFT_OUT]
    nbformat.write(notebook, path)


@pytest.mark.parametrize("whole", [False, pytest.param(True, marks=pytest.mark.stress)])
def test_postbuild_then_a_notebook_in_a_fresh_clone(tmp_path: Path, whole: bool) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True, timeout=120)
    home = tmp_path / "home"
    home.mkdir()
    npm_cache = str(Path.home() / ".npm")  # the cache that ./lab setup filled
    prefix = tmp_path / "env"  # repo2docker's CONDA_PREFIX: where postBuild puts the server's config
    env = {**os.environ, "HOME": str(home), "CONDA_PREFIX": str(prefix), "npm_config_offline": "true",
           "npm_config_cache": npm_cache,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    built = subprocess.run([str(clone / "postBuild")], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (clone / "worker" / "node_modules" / "wrangler" / "package.json").exists()
    assert KERNEL_NAME in built.stdout
    config = json.loads((prefix / "etc/jupyter/jupyter_server_config.d/reservation-lab.json").read_text())
    assert config["ServerApp"]["default_url"] == "/lab/tree/workspace"  # the learner's copies, not the originals
    assert not (home / ".jupyter").exists(), "postBuild must not touch the user's own Jupyter config"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = tmp_path / "run"
    executed = clone / "workspace" / "es" / "concurrent-reservations.ipynb"  # run and saved in place, as JupyterLab
    if not whole:
        cut_to_steps_1_to_3(executed)
    result = subprocess.run(
        papermill_command(str(executed), str(executed),
                          "-k", KERNEL_NAME, "-p", "workdir", str(run), "-p", "experiments", "False",
                          "--cwd", str(elsewhere)),  # the experiments are proven by the other runs
        cwd=elsewhere, env={**env, "PYTHONPATH": str(clone / "lib")}, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    if whole:
        report = json.loads((run / "report.json").read_text())
        assert report["summary"] == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    else:  # the burst's checks passed on the clone's Worker, served by the clone's wrangler
        cells = {cell.id: cell for cell in nbformat.read(executed, as_version=4).cells}
        shown = "".join(out.get("text", "") for out in cells["stop-server"].outputs)
        assert '"processesLeft": 0' in shown and not any(out.output_type == "error" for cell in cells.values()
                                                         for out in cell.get("outputs", []))
        assert (run / "logs").is_dir() and list((run / "logs").glob("dev*.log"))
    assert (run / "node_modules").resolve() == (clone / "worker" / "node_modules").resolve()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
    assert status.stdout == "", status.stdout  # the executed notebook is the learner's copy: git pull stays clean
