"""What a learner's kernel loads: the lab's facade and its race plot without a plotting library, the grader's
hypothesis or the Cloudflare double (each loads only where it is used). Every learner's kernel lives as long as
their session, so this is memory of every learner on a hub (issue 28's 0.5 GiB per learner; bench/RESULTS.md)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("matplotlib", "hypothesis", "reservation_lab.cloudflare_double", "reservation_lab.exercises.grader",
         "cryptography", "trustme")

PROGRAM = """
import json, sys
import reservation_lab.course as lab
from reservation_lab.domain.decisions import Attempt, Decision
from reservation_lab.race.plots import plot_bursts
decision = Decision("r1", 1, 201, {"status": "accepted", "reserved": 1}, [Attempt(0.0, 0.01, 201)])
svg = plot_bursts({"naive": [decision], "atomic": [decision]})._repr_svg_()
print(json.dumps({"loaded": [m for m in HEAVY if m in sys.modules], "svg": svg.startswith("<svg")}))
"""


def loaded_by(program: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{program}"], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return json.loads(out.splitlines()[-1])


def test_the_lab_and_its_plot_load_nothing_heavy() -> None:
    assert loaded_by(PROGRAM) == {"loaded": [], "svg": True}


def test_the_grader_still_loads_where_it_is_used() -> None:
    """The other side: the lazy imports are real imports that work (a grade loads the grader and hypothesis)."""
    program = ("import json, sys\nimport reservation_lab.course\nfrom reservation_lab.exercises.grader import Grader\n"
               "from reservation_lab.course.cloud_mode import Rehearsal\n"
               "print(json.dumps({'loaded': [m for m in HEAVY if m in sys.modules]}))")
    assert set(loaded_by(program)["loaded"]) >= {"hypothesis", "reservation_lab.exercises.grader"}
