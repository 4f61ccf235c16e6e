"""The exercises as worker/exercises.yml defines them: a stub (index.js with one place wrong, marked; for the client
exercise reference_client.py without its retries) and a reference solution, each an exact edit; the failure class
the stub shows; texts a solution must keep. The stub's comments that say what to do are in the learner's language
(the catalogs' [stubs] section); the markers and the code are the same in every language."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from reservation_lab.domain.edits import apply_edits
from reservation_lab.errors import LabError
from reservation_lab.i18n import message
from reservation_lab.paths import WORKER_DIR, WORKER_SRC

EXERCISES_FILE = WORKER_DIR / "exercises.yml"
REFERENCE_CLIENT = Path(__file__).with_name("reference_client.py")  # the client exercise's base
COMMENT_WIDTH = 96  # the header comment's lines, as wide as index.js's own comments
NO_BREAK = "\x00"  # holds a marker's words together while the header is wrapped


@dataclass(frozen=True)
class Exercise:
    """One exercise: `name`, the failure class its stub shows (`breaks`), its edits, the texts to keep, and whether
    its Worker takes cancellations (`cancels`: the grader's workloads then cancel too) or a person per reservation
    with a limit per person (`persons`: the workloads name persons, the judge holds them to PER_PERSON)."""

    name: str
    breaks: str
    stub_edits: tuple[tuple[str, str], ...]
    solution_edits: tuple[tuple[str, str], ...]
    keeps: tuple[str, ...] = ()
    cancels: bool = False
    persons: bool = False
    lacks: bool = False  # the stub lacks the behaviour (rather than having it wrong in one place)
    client: bool = False  # the learner writes a Python client (exercises/<name>.py), graded over a lossy network
    transfers: bool = False  # its Worker moves reservations between two objects (POST /transfers), graded with
    # restarts between a transfer's steps
    base: str = ""  # the exercise whose reference solution its stub edits (else the lab's index.js)
    checks: bool = False  # its Worker awaits an external check that can fail (the grader fails some checks)

    @property
    def search(self) -> str:
        """Which of the grader's searches judges its Worker (grader.SEARCHES), by what the Worker takes."""
        return ("cancels" if self.cancels else "persons" if self.persons else "transfers" if self.transfers else
                "checks" if self.checks else "reservations")

    @property
    def from_the_lab(self) -> bool:
        """A warm-up: the lab's own Worker answers it (the new behaviour, cancels, persons or a client, it does not)."""
        return not (self.cancels or self.persons or self.client or self.transfers)

    @property
    def file_name(self) -> str:
        """The learner's file in the run folder's exercises/: a Worker, or the client's Python module."""
        return f"{self.name}.py" if self.client else f"{self.name}.js"

    def stub(self, language: str = "en") -> str:
        """The Worker the learner receives: src/index.js with the stub edits, its task comments in `language`."""
        return self._localized(self._stub(), language)

    def solution(self, language: str = "en") -> str:
        """The reference solution: the stub with the solution edits."""
        return self._localized(apply_edits(self._stub(), dict(self.solution_edits)), language)

    def _stub(self) -> str:
        if self.base:  # another exercise's solution, its placeholders kept for this one's header
            below = exercise(self.base)
            return apply_edits(apply_edits(below._stub(), dict(below.solution_edits)), dict(self.stub_edits))
        base = REFERENCE_CLIENT if self.client else WORKER_SRC / "index.js"
        return apply_edits(base.read_text(), dict(self.stub_edits))

    @property
    def header_key(self) -> str:
        """The catalog key of the stub's opening comment: a client, a transfer, a behaviour missing, or one place
        wrong."""
        return ("stubs.header_client" if self.client else "stubs.header_transfer" if self.transfers else
                "stubs.header_new" if self.lacks else "stubs.header")

    def _localized(self, source: str, language: str) -> str:
        key = self.header_key
        markers = (f">>> EXERCISE {self.name}", f"<<< EXERCISE {self.name}")  # each on one line of the header
        text = message(key, language, name=self.name)
        for marker in markers:
            text = text.replace(marker, marker.replace(" ", NO_BREAK))
        header = [line.replace(NO_BREAK, " ") for line in textwrap.wrap(
            text, COMMENT_WIDTH, break_long_words=False, break_on_hyphens=False)]
        return (source.replace("@@header@@", ("\n# " if self.client else "\n// ").join(header))
                .replace("@@task@@", message(f"stubs.{self.name}", language)))


def _edits(entries: list[dict[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((entry["old"], entry["new"]) for entry in entries)


@cache
def exercises() -> dict[str, Exercise]:
    """Every exercise, in the file's (the notebook's) order."""
    data = yaml.safe_load(EXERCISES_FILE.read_text())
    return {name: Exercise(name, entry["breaks"], _edits(entry["stub"]), _edits(entry["solution"]),
                           tuple(entry.get("keeps", ())), bool(entry.get("cancels", False)),
                           bool(entry.get("persons", False)), bool(entry.get("lacks", False)),
                           bool(entry.get("client", False)), bool(entry.get("transfers", False)),
                           entry.get("base", ""), bool(entry.get("checks", False)))
            for name, entry in data.items()}


def exercise(name: str) -> Exercise:
    """The exercise called `name`; a clear error naming the others for an unknown one."""
    known = exercises()
    if name not in known:
        raise LabError("exercises.unknown", name=name, known=", ".join(known))
    return known[name]


def exercise_number(name: str) -> int:
    """The exercise's number in the notebook (1 for the first), as its heading and grade lines show it."""
    return list(exercises()).index(exercise(name).name) + 1
