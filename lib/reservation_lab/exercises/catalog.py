"""The exercises as worker/exercises.yml defines them: a stub (index.js with one place wrong, marked) and a
reference solution, each an exact edit; the failure class the stub shows; texts a solution must keep."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import yaml

from reservation_lab.domain.edits import apply_edits
from reservation_lab.errors import LabError
from reservation_lab.paths import WORKER_DIR, WORKER_SRC

EXERCISES_FILE = WORKER_DIR / "exercises.yml"


@dataclass(frozen=True)
class Exercise:
    """One exercise: `name`, the failure class its stub shows (`breaks`), its edits and the texts to keep."""

    name: str
    breaks: str
    stub_edits: tuple[tuple[str, str], ...]
    solution_edits: tuple[tuple[str, str], ...]
    keeps: tuple[str, ...] = ()

    def stub(self) -> str:
        """The Worker the learner receives: src/index.js with the stub edits."""
        return apply_edits((WORKER_SRC / "index.js").read_text(), dict(self.stub_edits))

    def solution(self) -> str:
        """The reference solution: the stub with the solution edits."""
        return apply_edits(self.stub(), dict(self.solution_edits))


def _edits(entries: list[dict[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((entry["old"], entry["new"]) for entry in entries)


@cache
def exercises() -> dict[str, Exercise]:
    """Every exercise, in the file's (the notebook's) order."""
    data = yaml.safe_load(EXERCISES_FILE.read_text())
    return {name: Exercise(name, entry["breaks"], _edits(entry["stub"]), _edits(entry["solution"]),
                           tuple(entry.get("keeps", ())))
            for name, entry in data.items()}


def exercise(name: str) -> Exercise:
    """The exercise called `name`; a clear error naming the others for an unknown one."""
    known = exercises()
    if name not in known:
        raise LabError("exercises.unknown", name=name, known=", ".join(known))
    return known[name]
