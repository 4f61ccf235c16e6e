"""paths, and the package as it is installed: an editable install from the checkout works (what ./lab setup does);
a copy (a wheel) refuses at import with one sentence unless RESERVATION_LAB_CHECKOUT names the checkout, and then a
session and a local step run; what the learner's facade imports is declared, not only in an extra."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from reservation_lab.paths import CHECKOUT_ENV, REPO_ROOT, is_checkout


@pytest.fixture(scope="module")
def installed_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as `pip install .` puts it into site-packages: its wheel, unpacked into a folder of its own."""
    wheels, site = tmp_path_factory.mktemp("wheels"), tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(wheels), str(REPO_ROOT)], check=True, timeout=300, capture_output=True)
    [wheel] = wheels.glob("reservation_lab-*.whl")
    zipfile.ZipFile(wheel).extractall(site)
    assert (site / "reservation_lab" / "paths.py").is_file() and not is_checkout(site.parent)
    return site


def run_from(site: Path, code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != CHECKOUT_ENV} | env
    prelude = f"import sys; sys.path.insert(0, {str(site)!r})\n"
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=180)


def test_the_checkout_is_found_beside_the_package() -> None:
    assert is_checkout(REPO_ROOT) and (REPO_ROOT / "lib" / "reservation_lab" / "paths.py").is_file()


def test_a_copy_without_its_checkout_refuses_with_one_sentence(installed_copy: Path, tmp_path: Path) -> None:
    done = run_from(installed_copy, "from reservation_lab import course", tmp_path)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: reservation_lab is installed at {installed_copy / 'reservation_lab'}")
    assert "pip install -e <checkout>" in last and CHECKOUT_ENV in last and "FileNotFoundError" not in done.stderr
    named = run_from(installed_copy, "import reservation_lab.paths", tmp_path, **{CHECKOUT_ENV: str(tmp_path)})
    assert f"{CHECKOUT_ENV} names {tmp_path}, which is not one" in named.stderr.strip().splitlines()[-1]


def test_a_copy_pointed_at_the_checkout_runs_a_session_and_a_local_step(installed_copy: Path,
                                                                       tmp_path: Path) -> None:
    code = f"""import json
from reservation_lab import course as lab
from reservation_lab.domain.config import write_wrangler_config
session = lab.start("pt", {str(tmp_path / 'run')!r})
write_wrangler_config(session.run)
server = lab.start_server(session.run)
with lab.LabClient(server.base_url) as client:
    health = client.health().body
session.stop()
print(json.dumps({{"package": lab.__file__, "health": health, "stopped": server.stopped}}))
"""
    done = run_from(installed_copy, code, tmp_path, **{CHECKOUT_ENV: str(REPO_ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["package"].startswith(str(installed_copy)) and result["stopped"]
    assert result["health"] == {"status": "ok"}


def _declared_closure() -> set[str]:
    """The distributions reservation-lab's own dependencies (no extra) bring, as installed here."""
    def name(text: str) -> str:
        return re.sub(r"[-_.]+", "-", text).lower()

    seen: set[str] = set()
    todo = [Requirement(r) for r in metadata.requires("reservation-lab") or [] if "extra ==" not in r]
    while todo:
        requirement = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        key = name(requirement.name)
        if key in seen:
            continue
        seen.add(key)
        todo += [Requirement(r) for r in metadata.requires(requirement.name) or [] if "extra ==" not in r]
    return seen


def module_source(module: str) -> Path | None:
    """The file of one of the package's modules, None for anything else."""
    if not module.startswith("reservation_lab"):
        return None
    path = REPO_ROOT / "lib" / Path(*module.split("."))
    for source in (path.with_suffix(".py"), path / "__init__.py"):
        if source.is_file():
            return source
    return None


def test_everything_the_learners_facade_imports_is_a_declared_dependency(tmp_path: Path) -> None:
    """A fresh `pip install -e .` without extras must import `reservation_lab.course` and grade (hypothesis once came
    only with the drills' extra): every third-party module that a module of the package loaded by the facade, or
    imported by one of them inside a function, imports belongs to a dependency declared without an extra, or to
    what they bring."""
    done = subprocess.run([sys.executable, "-c", "import sys, json; import reservation_lab.course; print(json.dumps("
                           "sorted(n for n, m in sys.modules.items() if n.startswith('reservation_lab'))))"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    imported: set[str] = set()
    todo, walked = list(json.loads(done.stdout)), set()
    while todo:  # the loaded modules and every module of the package they import, also inside a function (lazily)
        module = todo.pop()
        source = module_source(module)
        if module in walked or source is None:
            continue
        walked.add(module)
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
                todo += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
                todo += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    assert "reservation_lab.exercises.grader" in walked  # loaded by the first grade, not at import
    owners = metadata.packages_distributions()
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "reservation_lab"}
    used = {re.sub(r"[-_.]+", "-", dist).lower() for module in third_party for dist in owners.get(module, [module])}
    assert {"hypothesis", "httpx", "json5", "psutil"} <= used, used
    missing = used - _declared_closure()
    assert not missing, f"imported by reservation_lab.course but not a declared dependency: {sorted(missing)}"
