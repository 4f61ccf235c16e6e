"""deploy/z2jh/config.yaml is valid for the pinned jupyterhub chart and says what deploy/README.md says.

Helm validates the values it renders with: the chart's defaults (deploy/z2jh/chart-values.yaml) coalesced with the
user's file, against the chart's values.schema.json (deploy/z2jh/values.schema.json; deploy/z2jh/SCHEMA_SOURCE.md says
where both come from). The tests do the same, offline, and show that the schema catches the mistakes it should.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from reservation_lab.paths import REPO_ROOT

Z2JH = REPO_ROOT / "deploy" / "z2jh"
CONFIG = Z2JH / "config.yaml"
START = REPO_ROOT / "deploy" / "singleuser" / "start.sh"
PEAK_MIB = 670  # bench/RESULTS.md: one learner's Run All of the lab notebook on a hub, PSS of their server's tree
UNITS = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}  # JupyterHub's ByteSpecification: binary suffixes


def load_yaml(path: Path) -> dict[str, Any]:
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # safe: no object tags


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    loaded = json.loads((Z2JH / "values.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(loaded)
    return loaded


@pytest.fixture(scope="module")
def chart_defaults() -> dict[str, Any]:
    return load_yaml(Z2JH / "chart-values.yaml")


@pytest.fixture
def config() -> dict[str, Any]:
    return load_yaml(CONFIG)


def coalesce(defaults: Any, values: Any) -> Any:
    """Helm's merge of a values file onto the chart's defaults: maps merge key by key, a null deletes the key, and
    anything else (lists included) replaces the default."""
    if not (isinstance(defaults, dict) and isinstance(values, dict)):
        return copy.deepcopy(values)
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = coalesce(defaults.get(key), value)
    return merged


def errors(schema: dict[str, Any], values: dict[str, Any]) -> list[str]:
    found = jsonschema.Draft7Validator(schema).iter_errors(values)
    return sorted(f"{'.'.join(map(str, error.absolute_path))}: {error.message}" for error in found)


def byte_size(value: str | float) -> float:
    if isinstance(value, int | float):
        return value
    return float(value[:-1]) * UNITS[value[-1]]


def test_the_pinned_files_are_the_ones_schema_source_names() -> None:
    source = (Z2JH / "SCHEMA_SOURCE.md").read_text()
    for name in ("values.schema.json", "chart-values.yaml"):
        digest = hashlib.sha256((Z2JH / name).read_bytes()).hexdigest()
        assert f"| `{name}` | `{digest}` |" in source, name
    assert "5c5f5df751588a68a7781ead01d0f62e88e2e72f" in source and "**4.4.0**" in source


def test_the_chart_defaults_pass_the_pinned_schema(schema: dict[str, Any], chart_defaults: dict[str, Any]) -> None:
    """The pair is coherent: the chart's own values.yaml validates, as the chart's CI checks."""
    assert errors(schema, chart_defaults) == []


def test_the_class_config_passes_the_pinned_schema(schema: dict[str, Any], chart_defaults: dict[str, Any],
                                                   config: dict[str, Any]) -> None:
    assert errors(schema, coalesce(chart_defaults, config)) == []


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda c: c["singleuser"].__setitem__("defaultURL", c["singleuser"].pop("defaultUrl")),
     "singleuser: Additional properties are not allowed ('defaultURL' was unexpected)"),
    (lambda c: c["singleuser"]["memory"].__setitem__("limt", c["singleuser"]["memory"].pop("limit")),
     "singleuser.memory: Additional properties are not allowed ('limt' was unexpected)"),
    (lambda c: c["singleuser"]["cpu"].__setitem__("limit", "2"),
     "singleuser.cpu.limit: '2' is not of type 'number', 'null'"),
    (lambda c: c["cull"].__setitem__("timeout", "1h"),
     "cull.timeout: '1h' is not of type 'integer', 'null'"),
], ids=["misspelled-singleuser-key", "misspelled-memory-key", "cpu-limit-as-string", "cull-timeout-as-string"])
def test_the_schema_refuses_a_broken_config(schema: dict[str, Any], chart_defaults: dict[str, Any],
                                            config: dict[str, Any], mutate: Any, expected: str) -> None:
    """The validation above can fail: each mistake is refused, and named."""
    mutate(config)
    assert expected in errors(schema, coalesce(chart_defaults, config))


def test_the_schema_forbids_unknown_keys_where_the_config_sets_them(schema: dict[str, Any]) -> None:
    """additionalProperties: false is what catches a misspelled key; memory accepts a number as well as a string
    (so a memory limit without its unit would pass the schema: the value test below pins the strings)."""
    singleuser = schema["properties"]["singleuser"]
    for node in (schema, singleuser, singleuser["properties"]["memory"], singleuser["properties"]["cpu"],
                 singleuser["properties"]["networkPolicy"], schema["properties"]["cull"]):
        assert node["additionalProperties"] is False
    assert singleuser["properties"]["memory"]["properties"]["limit"]["type"] == ["number", "string", "null"]


def test_guarantees_and_limits_are_the_documented_ones(config: dict[str, Any]) -> None:
    singleuser = config["singleuser"]
    assert singleuser["memory"] == {"guarantee": "768M", "limit": "1.25G"}
    assert singleuser["cpu"] == {"guarantee": 0.5, "limit": 2}
    guarantee, limit = byte_size(singleuser["memory"]["guarantee"]), byte_size(singleuser["memory"]["limit"])
    assert PEAK_MIB * 2**20 < guarantee < limit  # the measured peak fits the guarantee, and the limit is above it
    assert limit == 1.25 * 2**30
    assert CONFIG.read_text().count("# from bench/RESULTS.md") >= 4  # each number says where it comes from


def test_culling_is_on_and_no_dummy_authenticator_is_left(chart_defaults: dict[str, Any],
                                                         config: dict[str, Any]) -> None:
    merged = coalesce(chart_defaults, config)
    assert merged["cull"]["enabled"] is True
    assert (merged["cull"]["timeout"], merged["cull"]["every"]) == (3600, 300)
    assert chart_defaults["hub"]["config"]["JupyterHub"]["authenticator_class"] == "dummy"  # what the chart does
    assert merged["hub"]["config"]["JupyterHub"]["authenticator_class"].startswith("CHANGE-ME")


def test_learners_open_jupyterlab_in_their_home_with_https_egress_only(chart_defaults: dict[str, Any],
                                                                      config: dict[str, Any]) -> None:
    merged = coalesce(chart_defaults, config)
    singleuser = merged["singleuser"]
    assert singleuser["defaultUrl"] == "/lab" and "--ServerApp.default_url=/lab" in singleuser["cmd"]
    assert merged["hub"]["config"]["KubeSpawner"]["working_dir"] == singleuser["storage"]["homeMountPath"]
    # the image's checkout (repo2docker --target-repo-dir) holds the start script this repository has
    assert "--target-repo-dir /srv/reservation-lab" in CONFIG.read_text()
    script = Path(singleuser["cmd"][1])
    assert script.is_relative_to("/srv/reservation-lab") and script.name == START.name
    assert (REPO_ROOT / script.relative_to("/srv/reservation-lab")) == START
    policy = singleuser["networkPolicy"]
    assert policy["enabled"] is True and policy["egressAllowRules"]["nonPrivateIPs"] is False
    assert [rule["ports"] for rule in policy["egress"]] == [[{"port": 443, "protocol": "TCP"}]]


def test_the_start_script_runs_the_course_from_the_learners_own_copy(tmp_path: Path) -> None:
    """deploy/singleuser/start.sh (singleuser.cmd) gives the kernel the learner's copy, so .runs/ is in their home,
    with the shared pinned wrangler linked in; a second start keeps the runs."""
    home = tmp_path / "home"
    home.mkdir()
    probe = "import reservation_lab.paths as p; print(p.RUNS_DIR); print(p.WORKER_DIR / 'node_modules')"
    env = {**os.environ, "HOME": str(home)}
    env.pop("PYTHONPATH", None)
    first = subprocess.run(["bash", str(START), sys.executable, "-c", probe], env=env, capture_output=True,
                           text=True, timeout=30, check=True)
    runs, node_modules = first.stdout.split()
    own = home / ".reservation-lab"
    assert Path(runs) == own / ".runs"
    assert Path(node_modules).resolve() == (REPO_ROOT / "worker" / "node_modules").resolve()
    (own / ".runs" / "labex-c10-o03-000000000000").mkdir(parents=True)
    (own / "lib" / "stale.py").write_text("")
    subprocess.run(["bash", str(START), "true"], env=env, check=True, timeout=30)
    assert (own / ".runs" / "labex-c10-o03-000000000000").is_dir() and not (own / "lib" / "stale.py").exists()
    assert not (own / ".git").exists() and first.stderr == ""


LSP_OFF = "--ServerApp.jpserver_extensions=jupyter_lsp=False"


@pytest.mark.parametrize("teacher", [False, True])
def test_a_learners_server_starts_without_nbgraders_extensions(tmp_path: Path, teacher: bool) -> None:
    """start.sh turns nbgrader's four server extensions off for a learner's jupyterhub-singleuser (a teacher's
    server keeps them with RESERVATION_LAB_NBGRADER=1), and jupyter-lsp's for both; the real server then loads none
    of them."""
    shim = tmp_path / "bin" / "jupyterhub-singleuser"  # records its arguments, as the hub's command would get them
    shim.parent.mkdir()
    shim.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    env.pop("RESERVATION_LAB_NBGRADER", None)
    if teacher:
        env["RESERVATION_LAB_NBGRADER"] = "1"
    args = subprocess.run(["bash", str(START), str(shim), "--debug"], env=env, capture_output=True, text=True,
                          timeout=60, check=True).stdout.split()
    off = [a for a in args if a.startswith("--ServerApp.jpserver_extensions=nbgrader.")]
    assert args[0] == "--debug" and LSP_OFF in args  # jupyter-lsp: off for a teacher's server too
    assert off == ([] if teacher else [f"--ServerApp.jpserver_extensions=nbgrader.server_extensions.{name}=False"
                                       for name in ("formgrader", "assignment_list", "course_list",
                                                    "validate_assignment")])
    if teacher:
        return
    loaded = started_server_log([LSP_OFF, *off], tmp_path)  # the real server with those options: none of them loads
    assert "jupyterlab | extension was successfully loaded" in loaded
    assert not [line for line in loaded.splitlines() if ("nbgrader" in line or "jupyter_lsp" in line)
                and "successfully loaded" in line]
    control = started_server_log([], tmp_path)  # without them, nbgrader's and jupyter-lsp's load
    assert "nbgrader" in control and "jupyter_lsp | extension was successfully loaded" in control


def started_server_log(args: list[str], tmp_path: Path) -> str:
    """What a Jupyter server of this environment logs until it serves (then it is stopped).

    It is stopped only once it answers /api/status: a SIGTERM between the URL's log line and the running event loop
    races the server's own start-up (its extensions start after its stop was scheduled), and once a run's server
    outlived the 30 s it had; what it logs on the way out is read, so a full pipe never holds it either."""
    import httpx

    from reservation_lab.runtime.ports import free_port
    from reservation_lab.runtime.waiting import wait_until

    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter-server"), "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1", f"--ServerApp.root_dir={tmp_path}",
         "--IdentityProvider.token=x", *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, "HOME": str(tmp_path)})
    assert server.stderr is not None
    lines = []

    def serves() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/api/status?token=x", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        for line in server.stderr:
            lines.append(line)
            if "http://127.0.0.1" in line:
                break
        assert wait_until(serves, 60, interval=0.2), "".join(lines)[-3000:]
    finally:
        server.terminate()
        server.communicate(timeout=30)
    return "".join(lines)
