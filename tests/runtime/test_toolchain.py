"""Finding Node 22 and the pinned wrangler, and the errors that say how to install them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from reservation_lab.errors import LabError, ToolchainError
from reservation_lab.paths import WORKER_DIR
from reservation_lab.runtime import toolchain
from reservation_lab.runtime.toolchain import (
    MIN_NODE_MAJOR,
    find_toolchain,
    node_major,
    pinned_wrangler_version,
)
from tests.support import raises_key

PINNED = pinned_wrangler_version()


@pytest.fixture(autouse=True)
def fresh_toolchain_cache() -> Iterator[None]:
    """find_toolchain is lru_cached: start and end every test with an empty cache."""
    find_toolchain.cache_clear()
    yield
    find_toolchain.cache_clear()


@pytest.fixture
def fake_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty worker folder holding only a copy of package.json, used as WORKER_DIR."""
    worker = tmp_path / "worker"
    worker.mkdir()
    shutil.copyfile(WORKER_DIR / "package.json", worker / "package.json")
    monkeypatch.setattr(toolchain, "WORKER_DIR", worker)
    return worker


def fake_wrangler(worker: Path, version: str) -> None:
    """Lay out node_modules/wrangler as npm would, with the given version."""
    package = worker / "node_modules" / "wrangler"
    (package / "wrangler-dist").mkdir(parents=True)
    (package / "wrangler-dist" / "cli.js").write_text("// not run by these tests\n")
    (package / "package.json").write_text(json.dumps({"name": "wrangler", "version": version}))


def fake_node(folder: Path, version: str) -> Path:
    """An executable that answers `--version` like node would."""
    node = folder / f"node-{version}"
    node.write_text(f"#!/bin/sh\necho {version}\n")
    node.chmod(0o755)
    return node


def test_find_toolchain_finds_node_22_and_the_pinned_wrangler() -> None:
    """The installed toolchain: Node >= 22 and wrangler exactly as pinned, from worker/node_modules."""
    found = find_toolchain()
    assert found.node.exists()
    assert node_major(found.node) >= MIN_NODE_MAJOR == 22
    assert found.wrangler_version == pinned_wrangler_version() == PINNED
    assert found.wrangler_cli == WORKER_DIR / "node_modules" / "wrangler" / "wrangler-dist" / "cli.js"
    assert found.wrangler_cli.is_file()


def test_find_toolchain_is_cached() -> None:
    """Two calls return the same object (no second `node --version`)."""
    assert find_toolchain() is find_toolchain()


def test_wrangler_argv_runs_node_on_the_entry_script() -> None:
    """wrangler_argv is node on the bundle as wrangler's launcher runs it (--no-warnings), then the arguments; no
    npx, no launcher process."""
    found = find_toolchain()
    assert found.wrangler_argv("dev", "--port", "0") == [
        str(found.node), "--no-warnings", str(found.wrangler_cli), "dev", "--port", "0"]
    launcher = (found.wrangler_cli.parent.parent / "bin" / "wrangler.js").read_text()
    assert '"--no-warnings",' in launcher and '"../wrangler-dist/cli.js"' in launcher


def test_missing_wrangler_says_to_run_setup(fake_worker: Path) -> None:
    """An empty worker folder: ToolchainError naming the folder and the setup command."""
    with pytest.raises(ToolchainError) as caught:
        find_toolchain()
    message = str(caught.value)
    assert "wrangler is not installed" in message
    assert str(fake_worker) in message
    assert "lab setup`" in message


def test_wrong_wrangler_version_is_named(fake_worker: Path) -> None:
    """Another installed version: the error names installed and pinned versions and the setup command."""
    assert PINNED != "4.0.0"
    fake_wrangler(fake_worker, "4.0.0")
    with raises_key("errors.wrangler_other_version", ToolchainError, installed="4.0.0", pinned=PINNED,
                    lab=toolchain.LAB_SCRIPT):
        find_toolchain()


def test_fake_worker_with_the_pinned_version_is_accepted(fake_worker: Path) -> None:
    """The same layout with the pinned version passes: the check is on the version, not the location."""
    fake_wrangler(fake_worker, PINNED)
    found = find_toolchain()
    assert found.wrangler_cli == fake_worker / "node_modules" / "wrangler" / "wrangler-dist" / "cli.js"
    assert found.wrangler_version == PINNED


def test_no_node_says_to_run_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    """No node anywhere: ToolchainError naming Node 22 and the setup command."""
    monkeypatch.setattr(toolchain, "_node_candidates", lambda: [])
    with raises_key("errors.node_missing", ToolchainError, major=22, lab=toolchain.LAB_SCRIPT):
        find_toolchain()


def test_only_an_old_node_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Node 20 on PATH does not count."""
    old = fake_node(tmp_path, "v20.11.1")
    monkeypatch.setattr(toolchain, "_node_candidates", lambda: [old])
    with raises_key("errors.node_missing", ToolchainError, major=22):
        find_toolchain()


def test_the_first_new_enough_node_is_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Old candidates are skipped; the first Node >= 22 wins."""
    old, new, newer = fake_node(tmp_path, "v20.11.1"), fake_node(tmp_path, "v22.20.0"), fake_node(tmp_path, "v24.1.0")
    monkeypatch.setattr(toolchain, "_node_candidates", lambda: [old, new, newer])
    assert find_toolchain().node == new


def test_toolchain_error_is_a_lab_error() -> None:
    """The CLI reports ToolchainError as a learner error (exit 2), not a traceback."""
    assert issubclass(ToolchainError, LabError)


@pytest.mark.parametrize(
    ("answer", "major"),
    [("v22.20.0", 22), ("v24.1.0", 24), ("v20.11.1", 20), ("not node", 0), ("", 0)],
)
def test_node_major(tmp_path: Path, answer: str, major: int) -> None:
    """The major version from `node --version`; 0 when the answer is not a version."""
    node = tmp_path / "node"
    node.write_text(f"#!/bin/sh\necho '{answer}'\n")
    node.chmod(0o755)
    assert node_major(node) == major


def test_node_major_of_a_missing_binary_is_zero(tmp_path: Path) -> None:
    """A path that cannot run is version 0, not an exception."""
    assert node_major(tmp_path / "no-such-node") == 0


def test_half_installed_wrangler_gives_a_toolchain_error(fake_worker: Path) -> None:
    """bin/wrangler.js present but no package.json: still a ToolchainError that says to run setup."""
    fake_wrangler(fake_worker, PINNED)
    (fake_worker / "node_modules" / "wrangler" / "package.json").unlink()
    with raises_key("errors.wrangler_incomplete", ToolchainError, lab=toolchain.LAB_SCRIPT):
        find_toolchain()


def test_every_wrangler_command_and_terminal_gets_nodes_compile_cache(tmp_path: Path) -> None:
    """wrangler's bundle is compiled once per pin, not once per command: the environments of the helpers' wrangler
    and of the course's terminals name the cache beside node_modules (a learner's own NODE_COMPILE_CACHE wins), and
    a wrangler command run with it leaves an entry there for the bundle."""
    from reservation_lab.jupyter.jupyterlab import terminal_env
    from reservation_lab.runtime.wrangler import run_wrangler, warm_compile_cache, wrangler_env

    assert wrangler_env(tmp_path / "logs")["NODE_COMPILE_CACHE"] == str(toolchain.COMPILE_CACHE)
    assert terminal_env({})["NODE_COMPILE_CACHE"] == str(toolchain.COMPILE_CACHE)
    assert terminal_env({"NODE_COMPILE_CACHE": str(tmp_path / "own")})["NODE_COMPILE_CACHE"] == str(tmp_path / "own")
    assert toolchain.COMPILE_CACHE.parent.parent == WORKER_DIR / "node_modules"
    own = tmp_path / "cache"
    run_wrangler("--version", cwd=tmp_path, echo=None, extra_env={"NODE_COMPILE_CACHE": str(own)})
    assert [path for path in own.rglob("*") if path.is_file() and path.stat().st_size > 1_000_000]  # cli.js's
    warmed = tmp_path / "warmed"  # what the installers (./lab setup, postBuild, TLJH) do once
    assert warm_compile_cache(warmed) and [p for p in warmed.rglob("*") if p.stat().st_size > 1_000_000]
