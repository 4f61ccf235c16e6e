"""The classes of defect a native read found in learner sentences, caught for every sentence at once: a count
without its plural pair, a Python value (True/False, a repr) inside a sentence, an English code in an output."""

from __future__ import annotations

import re

import pytest

from reservation_lab.course.experiments import shown_verdict
from reservation_lab.domain.invariants import Summary, check_equal
from reservation_lab.errors import InvariantError
from reservation_lab.i18n import languages
from reservation_lab.i18n.catalog import entries

LEARNERS = [language for language in languages() if language != "en"]
PYTHON_VALUES = re.compile(r"\bTrue\b|\bFalse\b|\bNone\b|\w+\(\w+=|\{'")


def test_every_sentence_with_a_count_has_its_plural_pair() -> None:
    """A template that places a count `{n}` exists as `_one` and `_other` (the form is chosen per language)."""
    for language in languages():
        templates = entries(language)
        single = [key for key, text in templates.items() if "{n}" in text and not key.endswith(("_one", "_other"))]
        assert single == [], (language, single)
        unpaired = [key for key in templates if key.endswith("_one") and key[:-4] + "_other" not in templates]
        assert unpaired == [], (language, unpaired)


@pytest.mark.parametrize("language", LEARNERS)
@pytest.mark.parametrize(("actual", "expected"), [
    (False, True),
    (Summary(accepted=3, rejected=7, highestReserved=3), Summary(accepted=4, rejected=6, highestReserved=4)),
    ({"capacity": 4, "reserved": 5}, {"capacity": 4, "reserved": 4}),
])
def test_a_failed_check_shows_values_in_words_and_json_never_python(language: str, actual: object,
                                                                       expected: object) -> None:
    with pytest.raises(InvariantError) as raised:
        check_equal("burst_summary", actual, expected)
    text = raised.value.localized(language)
    assert PYTHON_VALUES.search(text) is None, text


@pytest.mark.parametrize("language", LEARNERS)
def test_an_experiments_verdict_names_every_problem_in_the_learners_language(language: str) -> None:
    """Every contradiction the checker can report has a short name in every language; none is shown as a code."""
    codes = sorted({key.split(".", 1)[1].removesuffix("_one").removesuffix("_other")
                    for key in entries("en") if key.startswith("checker.") and key.split(".", 1)[1] in PROBLEM_KEYS})
    assert codes, "no checker problem keys found"
    shown = shown_verdict({"accepted": 4, "problems": codes}, language)
    assert not any("_" in name or name == code for name, code in zip(shown["problems"], codes, strict=True)), shown


PROBLEM_KEYS = {  # the templates the checker records as contradictions (domain/checker: problems.add)
    "impossible_start", "http_mismatch", "invalid_reserved", "capacity_mismatch", "decided_before_burst",
    "decided_twice", "unmarked_replay", "bad_replay", "same_reserved", "overbooking", "below_start", "overlap", "gap",
    "gap_undecided",
    "never_existed", "false_rejection", "after_capacity", "after_lost_write_one", "after_lost_write_other",
    "after_unexplained", "after_seats", "after_accepted_one", "after_accepted_other", "after_rejected_one",
    "after_rejected_other",
}
