"""The experiments' bench for real: a variant is served after wrangler dev's reload or, if none comes, a restart."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from reservation_lab.authoring.builder import load_cells
from reservation_lab.domain.edits import apply_edits
from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import LabError
from reservation_lab.experiments.variants import run_experiment
from reservation_lab.experiments.workbench import Workbench
from reservation_lab.runtime.devserver import write_atomically
from tests.support import raises_key


def notebook_edits(name: str) -> dict[str, str]:
    """The edits dict `name` as the notebook's experiment cell defines it (one source: cells.yml)."""
    namespace: dict[str, object] = {}
    for cell in load_cells():
        code = textwrap.dedent(cell.get("code", "").removeprefix("if experiments:\n"))
        if code.startswith(f"{name} = "):
            exec(code.split("\nexp_")[0], namespace)  # noqa: S102 - the course's own cell text
            return namespace[name]  # type: ignore[return-value]
    raise AssertionError(f"no experiment cell defines {name}")


def test_edits_must_match_exactly_once() -> None:
    assert apply_edits("a b c", {"b": "B"}) == "a B c"
    with raises_key("errors.edit_not_once", LabError, count=0):
        apply_edits("a b c", {"x": "y"})
    with raises_key("errors.edit_not_once", LabError, count=2):
        apply_edits("b b", {"b": "y"})


def test_atomic_write_leaves_only_the_file(tmp_path: Path) -> None:
    target = tmp_path / "index.js"
    target.write_text("old")
    write_atomically(target, "new")
    assert target.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["index.js"]


@pytest.mark.parametrize("reload_wait", [30.0, 0.0], ids=["reload", "restart-fallback"])
def test_each_variant_is_what_runs(run_folder: RunFolder, reload_wait: float) -> None:
    """Shipped, then overbooking, then shipped again; with reload_wait 0 every change goes through a restart."""
    bench = Workbench(run_folder, reload_wait=reload_wait)
    try:
        async def sequence() -> list[dict]:
            shipped = await run_experiment(bench, "shipped", {}, 6)
            broken = await run_experiment(bench, "no-check", notebook_edits("no_guard_no_check"), 6)
            again = await run_experiment(bench, "shipped-again", {}, 6)
            return [shipped.verdict(), broken.verdict(), again.verdict()]

        shipped, broken, again = asyncio.run(sequence())
    finally:
        bench.close()
    for verdict in (shipped, again):
        facts = (verdict["accepted"], verdict["rejected"], verdict["reserved"], verdict["serialOrder"])
        assert facts == (4, 2, 4, True)
    assert (broken["accepted"], broken["reserved"], broken["problems"]) == (6, 6, ["overbooking"])
    if reload_wait == 0.0:
        assert bench.restarts == 2
    assert bench.server is None and bench.leftovers() == {"processesLeft": 0, "portFree": True}
