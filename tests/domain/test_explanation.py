"""The checker's words in every notebook language: a complete catalog, every template reachable, same numbers."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from reservation_lab.domain.checker import (
    CheckResult,
    check_history,
    describe,
    explain,  # the module whose describe() explain() uses
    explanation,  # the module whose describe() explain() uses
)
from reservation_lab.domain.decisions import Decision
from reservation_lab.i18n import Message, languages
from reservation_lab.i18n.catalog import _form, entries
from tests.support import acc, body, rej, status

LANGUAGES = languages()
# The checker's section of every catalog, as {"checker.<name>": {language: template}}.
CATALOG = {key: {language: entries(language)[key] for language in LANGUAGES if key in entries(language)}
           for key in entries("en") if key.startswith("checker.")}

OTHERS = [language for language in LANGUAGES if language != "en"]

# Words of the English texts that a German, Portuguese or Spanish text must not contain (as whole words, outside
# field names such as `reserved=` and quoted field values such as "accepted"). Not "serial" (Portuguese and Spanish
# too) nor "burst" (the German course says "Burst"). Quoted values are JSON ("accepted"), as i18n.quoted writes them.
ENGLISH = re.compile(r"\b(accepted|rejected|seats?|counter|overbooking|lost|update|order|explains?|answers?|"
                     r"contradiction|undecided|capacity|more|both|saw|the|and|was|but|with|without|state)\b",
                     re.IGNORECASE)
FIELDS = re.compile(r'\w+=\S+|"[^"]*"')


def english_words(text: str) -> list[str]:
    return ENGLISH.findall(FIELDS.sub(" ", text))


def numbers(text: str) -> Counter[str]:
    """Every run of digits (requestIds, counter values, counts): the same in every language."""
    return Counter(re.findall(r"\d+", text))


def request_ids(text: str) -> Counter[str]:
    return Counter(re.findall(r"request-\d+", text))


# --- the catalog --------------------------------------------------------------------------------------------------


def placeholders(template: str) -> set[tuple[str, str | None, str]]:
    return {(name, conversion, spec) for _, name, spec, conversion in string.Formatter().parse(template)
            if name is not None}


@pytest.mark.parametrize("key", sorted(CATALOG))
def test_every_template_has_all_languages_with_the_same_placeholders(key: str) -> None:
    entry = CATALOG[key]
    assert set(entry) == set(LANGUAGES), key
    english = placeholders(entry["en"])
    for language in LANGUAGES:
        assert entry[language].strip(), (key, language)
        assert placeholders(entry[language]) == english, (key, language, entry[language])


def test_plural_templates_come_in_pairs() -> None:
    stems = {key.rsplit("_", 1)[0] for key in CATALOG if key.endswith(("_one", "_other"))}
    for stem in stems:
        assert {f"{stem}_one", f"{stem}_other"} <= set(CATALOG), stem
        assert placeholders(CATALOG[f"{stem}_one"]["en"]) == placeholders(CATALOG[f"{stem}_other"]["en"])


def test_unknown_language_falls_back_to_english() -> None:
    result = check_history([acc("request-1", 1), acc("request-2", 1)], status(0))
    assert describe(result.problem_messages[0], "fr") == result.problem
    assert explain(result, language="fr") == explain(result)


# --- histories: every problem template, and explain() -------------------------------------------------------------

LOST_UPDATE = ([acc("request-3", 1), acc("request-7", 1), acc("request-1", 2, seats=2), acc("request-4", 2)],
               status(0), None)
OVERBOOKING = ([acc(f"request-{i}", i) for i in range(1, 7)], status(0), status(6, 6, 0))
VALID = ([acc("request-1", 1), body("request-2", None, seats=2), acc("request-3", 4), rej("request-4", 4)],
         status(0), status(4, 3, 1))
VALID_FULL = ([acc("request-1", 4, seats=4), rej("request-2", 4), rej("request-3", 4), body("request-4", None),
               body("request-5", None)], status(0), None)
UNCHANGED = ([rej("request-1", 4), rej("request-2", 4)], status(4, 4), None)  # a full workshop: nothing moves
ONE_UNDECIDED_NONE = ([acc("request-1", 4, seats=4), body("request-2", None)], status(0), None)
FIVE_CLAIM_ONE = ([acc(f"request-{i}", 1) for i in range(1, 6)], status(0), None)  # "… and 2 more" at limit 1
TWO_UNDECIDED_APPLIED = ([acc("request-1", 1), body("request-2", None), body("request-3", None), acc("request-4", 4)],
                         status(0), None)

BROKEN: dict[str, tuple[list[Any], dict[str, int], dict[str, int] | None, list[Any] | None]] = {
    "impossible start": ([], {"capacity": 4, "reserved": 5}, None, None),
    "http code": ([Decision("request-1", 1, 409, acc("request-1", 1))], status(0), None, None),
    "no reserved": ([{"requestId": "request-1", "seats": 1, "status": "rejected", "reserved": None}], status(0), None,
                    None),
    "capacity in an answer": ([acc("request-1", 1, capacity=5)], status(0), None, None),
    "decided before": ([acc("request-1", 2)], status(1, 1), None, [acc("request-1", 1)]),
    "decided twice": ([acc("request-2", 1), acc("request-2", 2, seats=2)], status(0), None, None),
    "replay not marked": ([acc("request-2", 1), acc("request-2", 1)], status(1), None, None),
    "bad replay": ([acc("request-1", 1), acc("request-2", 2), rej("request-1", 4, replayed=True)], status(0), None,
                   None),
    "lost update": (*LOST_UPDATE, None),
    "overbooking": (*OVERBOOKING, None),
    "below start": ([acc("request-1", 1)], status(2, 2), None, None),
    "gap after a request": ([acc("request-1", 1), acc("request-2", 3)], status(0), None, None),
    "gap at the start": ([acc("request-1", 2)], status(0), None, None),
    "gap, undecided too small": ([acc("request-1", 1), body("request-2", None, seats=2), acc("request-3", 3)],
                                 status(0), None, None),
    "state below the start": ([rej("request-1", 1, seats=4)], status(2, 2), None, None),
    "state above the last": ([acc("request-1", 1), rej("request-2", 4, seats=4)], status(0), None, None),
    "state between": ([acc("request-1", 1), acc("request-2", 2), acc("request-3", 4, seats=2),
                       rej("request-5", 3, seats=2)], status(0), None, None),
    "false rejection, 1 seat": ([acc("request-1", 1), rej("request-2", 1)], status(0), None, None),
    "false rejection, 2 seats": ([acc("request-1", 1), rej("request-2", 1, seats=2)], status(0), None, None),
    "durable capacity": ([acc("request-1", 1)], status(0), status(1, 1, capacity=5), None),
    "durable lost write": ([acc("request-1", 1), acc("request-2", 2)], status(0), status(1, 2), None),
    "durable lost writes": ([acc("request-1", 1), acc("request-2", 2), acc("request-3", 3)], status(0), status(1, 3),
                            None),
    "1 seat taken": ([acc("request-1", 1), acc("request-2", 2)], status(0), status(3, 2), None),
    "2 seats taken": ([acc("request-1", 1), acc("request-2", 2)], status(0), status(4, 2), None),
    "durable acceptedSeats": ([acc("request-1", 1)], status(0), status(1, 1, seats=2), None),
    "1 accepted answer": ([acc("request-1", 1)], status(0), status(1, 2), None),
    "1 undecided counted": ([acc("request-1", 1), body("request-2", None), acc("request-3", 3)], status(0),
                            status(3, 5), None),
    "2 undecided counted": ([acc("request-1", 1), body("request-2", None), body("request-3", None),
                             acc("request-4", 4)], status(0), status(4, 9), None),
    "1 rejected answer": ([acc("request-1", 4, seats=4), rej("request-2", 4)], status(0), status(4, 1, 3), None),
    "0 rejected answers": ([acc("request-1", 1)], status(0), status(1, 1, 1), None),
    "1 undecided could be rejected": ([acc("request-1", 4, seats=4), body("request-2", None)], status(0),
                                      status(4, 1, 5), None),
    "2 undecided could be rejected": ([acc("request-1", 4, seats=4), body("request-2", None), body("request-3", None)],
                                      status(0), status(4, 1, 5), None),
}


def broken(name: str) -> CheckResult:
    responses, before, after, prior = BROKEN[name]
    result = check_history(responses, before, after, prior=prior)
    assert not result.ok, name
    return result


def keys(message: Message, language: str) -> Iterator[str]:
    """The templates rendering `message` in `language` uses (a plural message: the form it picks)."""
    yield _form(message, language)
    for value in message.values.values():
        if isinstance(value, Message):
            yield from keys(value, language)


def test_every_template_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The histories above reach every template of the catalog (problems, their pieces and explain's sentences)."""
    used: set[str] = set()

    def spy(message: Message, language: str = "en") -> str:
        used.update(keys(message, language))
        return describe(message, language)

    monkeypatch.setattr(explanation, "describe", spy)
    results = [broken(name) for name in BROKEN]
    results += [check_history(*history) for history in (VALID, VALID_FULL, UNCHANGED, ONE_UNDECIDED_NONE,
                                                         TWO_UNDECIDED_APPLIED, FIVE_CLAIM_ONE)]
    for result in results:
        for language in LANGUAGES:
            explain(result, language=language)
            explain(result, limit=1, language=language)
    assert sorted(set(CATALOG) - used - SEARCH_TEMPLATES) == []


SEARCH_TEMPLATES = {"checker.decided_again", "checker.cancelled_twice", "checker.counter_out_of_range",
                    "checker.no_order_for", "checker.no_order_durable", "checker.kind_reserve", "checker.kind_cancel",
                    "checker.over_person_limit", "checker.cancel_of_rejected", "checker.rejected_within_limit"}
# check_with_cancels' problems (domain/checker/search.py): reached by tests/domain/test_checker_search.py


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_every_problem_in_every_language(name: str) -> None:
    result = broken(name)
    assert [describe(message) for message in result.problem_messages] == result.problems
    for message, english in zip(result.problem_messages, result.problems, strict=True):
        for language in OTHERS:
            text = describe(message, language)
            assert text != english, (language, text)
            assert numbers(text) == numbers(english), (language, text, english)
            assert english_words(text) == [], (language, text)


# --- explain() for a lost update, overbooking and a valid history --------------------------------------------------

BEFORE = {  # explain()'s English output before the checker spoke other languages
    "lost update": "No serial order explains these answers. First contradiction: request-1 moved the counter from 0 "
                   "to 2, but request-3 had already taken it to 1 (a lost update: the two reservations overlap).\n"
                   "2 more contradictions:\n"
                   "  - request-3 and request-7 both report reserved=1 (a lost update: two accepted answers report the "
                   "same counter value)\n"
                   "  - request-1 and request-4 both report reserved=2 (a lost update: two accepted answers report the "
                   "same counter value)",
    "overbooking": "No serial order explains these answers. First contradiction: request-5 was accepted with "
                   "reserved=5, above the capacity of 4 (overbooking).\n"
                   "1 more contradiction:\n"
                   "  - request-6 was accepted with reserved=6, above the capacity of 4 (overbooking)",
    "valid": "One serial order explains all answers: the counter goes from 0 to 4 (capacity 4); 2 accepted, "
             "1 rejected; 1 undecided, of which this order lets 1 take effect.\n"
             "Order: request-1 0→1, request-2 1→3 (undecided), request-3 3→4, request-4 rejected at 4.",
}
BEFORE_LIMIT_1 = {
    "lost update": "No serial order explains these answers. First contradiction: request-1 moved the counter from 0 "
                   "to 2, but request-3 had already taken it to 1 (a lost update: the two reservations overlap).\n"
                   "2 more contradictions:\n"
                   "  - request-3 and request-7 both report reserved=1 (a lost update: two accepted answers report the "
                   "same counter value)\n"
                   "  … and 1 more.",
    "overbooking": BEFORE["overbooking"],
    "valid": "One serial order explains all answers: the counter goes from 0 to 4 (capacity 4); 2 accepted, "
             "1 rejected; 1 undecided, of which this order lets 1 take effect.\n"
             "Order: request-1 0→1, … (3 more).",
}
HISTORIES = {"lost update": LOST_UPDATE, "overbooking": OVERBOOKING, "valid": VALID}


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_english_explanation_is_unchanged(name: str) -> None:
    result = check_history(*HISTORIES[name])
    assert explain(result) == BEFORE[name]
    assert explain(result, language="en") == BEFORE[name]
    assert explain(result, limit=1) == BEFORE_LIMIT_1[name]


@pytest.mark.parametrize("language", OTHERS)
@pytest.mark.parametrize("name", sorted(HISTORIES))
@pytest.mark.parametrize("limit", [12, 1])
def test_explanation_in_the_notebook_language(name: str, language: str, limit: int) -> None:
    result = check_history(*HISTORIES[name])
    english = explain(result, limit=limit)
    text = explain(result, limit=limit, language=language)
    assert request_ids(text) == request_ids(english)
    assert numbers(text) == numbers(english)
    assert "reserved=" in text or result.ok
    assert english_words(text) == [], text
    assert len(text.splitlines()) == len(english.splitlines())


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("de", ["Keine serielle Reihenfolge erklärt", "Die Anfrage request-1 hat den Zähler von 0 auf 2 gesetzt",
                "verlorene Aktualisierung", "2 weitere Widersprüche:"]),
        ("pt", ["Nenhuma ordem serial explica", "a solicitação request-1 levou o contador de 0 a 2",
                "atualização perdida", "Mais 2 contradições:"]),
        ("es", ["Ningún orden serial explica", "la solicitud request-1 llevó el contador de 0 a 2",
                "actualización perdida", "2 contradicciones más:"]),
    ],
)
def test_lost_update_wording(language: str, expected: list[str]) -> None:
    text = explain(check_history(*LOST_UPDATE), language=language)
    for phrase in expected:
        assert phrase in text, (phrase, text)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("de", ["Eine serielle Reihenfolge erklärt alle Antworten", "2 angenommen, 1 abgelehnt",
                "request-2 1→3 (ohne Entscheidung)", "request-4 abgelehnt bei 4", "Reihenfolge: "]),
        ("pt", ["Uma ordem serial explica todas as respostas", "2 aceitas, 1 rejeitada",
                "request-2 1→3 (sem decisão)", "request-4 rejeitada em 4", "Ordem: "]),
        ("es", ["Un orden serial explica todas las respuestas", "2 aceptadas, 1 rechazada",
                "request-2 1→3 (sin decisión)", "request-4 rechazada en 4", "Orden: "]),
    ],
)
def test_valid_history_wording(language: str, expected: list[str]) -> None:
    text = explain(check_history(*VALID), language=language)
    for phrase in expected:
        assert phrase in text, (phrase, text)


@pytest.mark.parametrize(
    ("language", "one", "other"),
    [("de", "1 Platz", "2 Plätze"), ("pt", "1 lugar", "2 lugares"), ("es", "1 plaza", "2 plazas"),
     ("en", "1 seat", "2 seats")],
)
def test_seat_counts_agree_in_number(language: str, one: str, other: str) -> None:
    assert one in describe(broken("false rejection, 1 seat").problem_messages[0], language)
    assert other in describe(broken("false rejection, 2 seats").problem_messages[0], language)
    assert other in describe(broken("2 seats taken").problem_messages[0], language)


def test_hand_made_results_explain_their_english_problems() -> None:
    """A CheckResult built without problem_messages still explains itself (in its English problem text)."""
    result = CheckResult(ok=False, order=[], problem="something odd", problems=["something odd", "more oddness"])
    for language in LANGUAGES:
        text = explain(result, language=language)
        assert "something odd" in text and "more oddness" in text
    assert explain(result).startswith("No serial order explains these answers. First contradiction: something odd.")
