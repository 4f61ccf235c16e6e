"""course/parameters.py: the notebooks' parameters, and the one refusal of a name a notebook does not have."""

from __future__ import annotations

import pytest

from reservation_lab.authoring.papermill_run import run_course
from reservation_lab.course.parameters import DEFAULTS, EXERCISE_DEFAULTS, check_known
from tests.support import raises_key


def test_known_names_pass_and_unknown_ones_are_named_with_the_known() -> None:
    check_known(["burst_size", "cloud"])
    check_known(["workloads"], EXERCISE_DEFAULTS)
    with raises_key("errors.unknown_parameters", unknown="burst, workloads", known=", ".join(DEFAULTS)):
        check_known(["burst", "workloads", "cloud"])
    with raises_key("errors.unknown_parameters", unknown="burst_size", known=", ".join(EXERCISE_DEFAULTS)):
        check_known(["burst_size"], EXERCISE_DEFAULTS)


def test_run_course_refuses_an_unknown_parameter_before_it_runs_anything(tmp_path) -> None:
    with raises_key("errors.unknown_parameters", unknown="burst"):
        run_course(workdir=str(tmp_path / "run"), burst=3)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("defaults", [DEFAULTS, EXERCISE_DEFAULTS])
def test_every_default_is_a_known_name(defaults) -> None:
    check_known(defaults, defaults)
