"""domain.runs: run folders — created (with the Worker's source and node tests), opened, never sharing paths."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reservation_lab.domain.config import wrangler_config, write_wrangler_config
from reservation_lab.domain.runs import RunFolder, create_run_folder, open_run
from reservation_lab.errors import LabError
from reservation_lab.paths import WORKER_SRC
from tests.support import raises_key

NAME_SHAPE = re.compile(r"^labex-c10-o03-[0-9a-f]{12}$")


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture
def run(tmp_path: Path) -> RunFolder:
    """A fresh run folder inside the test's tmp dir."""
    return create_run_folder(tmp_path / "run")


def test_create_run_folder_refuses_a_bad_name_before_writing(tmp_path: Path) -> None:
    """A bad name is refused and nothing is created."""
    with pytest.raises(LabError):
        create_run_folder(tmp_path / "run", name="production-api")
    assert not (tmp_path / "run").exists()


def test_create_run_folder_copies_the_worker_source(run: RunFolder, tmp_path: Path) -> None:
    """The Worker source and its node tests are byte-identical copies (the node tests import cleanup.js too, so
    it is there from the start; only the cleanup config names it as main); logs/ exists; the name is lab-shaped;
    node_modules points at the pinned wrangler, so `npx wrangler` in the folder never downloads one."""
    assert run.root == (tmp_path / "run").resolve()
    assert NAME_SHAPE.fullmatch(run.name)
    for file in ("index.js", "front.js", "validation.js", "cleanup.js"):
        copy = run.root / "src" / file
        assert copy.read_bytes() == (WORKER_SRC / file).read_bytes()
    for file in ("cloudflare-loader.mjs", "do-harness.mjs", "worker.test.mjs"):
        assert (run.root / "test" / file).read_bytes() == (WORKER_SRC.parent / "test" / file).read_bytes()
    assert json.loads((run.root / "package.json").read_text())["type"] == "module"
    assert (run.root / "node_modules").resolve() == (WORKER_SRC.parent / "node_modules").resolve()
    assert (run.root / "node_modules" / ".bin" / "wrangler").exists()
    assert run.logs_dir.is_dir()
    assert wrangler_config(run.name)["main"] == "src/index.js"


def test_run_folder_paths_stay_inside_the_root(run: RunFolder) -> None:
    """Config, cleanup config, state and logs all live in the run's own folder."""
    for path in (run.config, run.cleanup_config, run.state_dir, run.logs_dir):
        assert path.parent == run.root
    assert run.config.name == "wrangler.jsonc"
    assert run.cleanup_config.name == "wrangler.cleanup.jsonc"


def test_create_run_folder_with_a_given_name(tmp_path: Path) -> None:
    """A given lab name is kept."""
    run = create_run_folder(tmp_path / "named", name="labex-c10-o03-abcdefabcdef")
    assert run.name == "labex-c10-o03-abcdefabcdef"


def test_a_folder_named_like_a_run_keeps_its_name(tmp_path: Path) -> None:
    """A workdir named like a run (e.g. .runs/<name> reused) gives the Worker that name."""
    run = create_run_folder(tmp_path / "labex-c10-o03-abcdefabcdef")
    assert run.name == "labex-c10-o03-abcdefabcdef"
    assert run.root.name == run.name


def test_an_explicit_name_wins_over_the_folder_name(tmp_path: Path) -> None:
    """name= is used even when the folder looks like another run."""
    run = create_run_folder(tmp_path / "labex-c10-o03-abcdefabcdef", name="labex-c10-o03-000000000001")
    assert run.name == "labex-c10-o03-000000000001"


def test_a_folder_not_named_like_a_run_gets_a_fresh_name(tmp_path: Path) -> None:
    """Folder names that are not run names (even near misses) never become Worker names."""
    for folder in ("my-run", "labex-c10-o03-ABCDEFABCDEF", "labex-c10-o03-abc"):
        run = create_run_folder(tmp_path / folder)
        assert NAME_SHAPE.fullmatch(run.name)
        assert run.name != folder


def test_two_run_folders_never_share_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Default run folders (.runs/<name>) of two runs share no file or folder."""
    monkeypatch.setattr("reservation_lab.domain.runs.RUNS_DIR", tmp_path / "runs")
    first, second = create_run_folder(), create_run_folder()
    assert first.name != second.name
    assert first.root == tmp_path / "runs" / first.name
    assert second.root == tmp_path / "runs" / second.name
    first_paths = {first.root, first.config, first.cleanup_config, first.state_dir, first.logs_dir}
    second_paths = {second.root, second.config, second.cleanup_config, second.state_dir, second.logs_dir}
    assert first_paths.isdisjoint(second_paths)
    assert not second.root.is_relative_to(first.root)
    assert not first.root.is_relative_to(second.root)
    write_wrangler_config(first)
    write_wrangler_config(second)
    assert _read_json(first.config)["name"] == first.name
    assert _read_json(second.config)["name"] == second.name

def test_open_run_reads_the_name_from_its_config(run: RunFolder, tmp_path: Path) -> None:
    write_wrangler_config(run)
    assert open_run(run.root) == run
    with raises_key("cloud.run_folder_no_config"):
        open_run(tmp_path / "nothing-here")
