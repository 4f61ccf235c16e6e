"""The catalogs: every key in every language with the same placeholders, plural pairs, numbers as each language
writes them, every key the code names exists, and a fourth language is one more file."""

from __future__ import annotations

import ast
import re
import shutil
import string
from pathlib import Path

import pytest

from reservation_lab.i18n import catalog
from reservation_lab.i18n.catalog import (
    COURSE_LANGUAGES,
    Message,
    describe,
    entries,
    languages,
    message,
    number,
    plural,
)
from reservation_lab.paths import PACKAGE_DIR


def fields(template: str) -> set[tuple[str, str | None]]:
    return {(name, conversion) for _, name, _, conversion in string.Formatter().parse(template) if name is not None}


def test_the_course_languages_have_catalogs() -> None:
    assert sorted(languages()) == sorted([*COURSE_LANGUAGES, "en"]) and languages()[-1] == "en"


# Entries that may read the same in two languages: product words, codes, labels of the checker's own output.
SAME_IN_SOME_LANGUAGES = {
    "checks.exp2_reserved", "cloud.verified", "exercises.column_http", "exercises.column_kind",
    "exercises.column_request", "lines.hidden_value", "problems.after_lost_write", "race.column_reserved",
    "verify.binding_ok", "verify.fail", "verify.label_binding", "verify.label_cloud_launch", "verify.label_worker",
    "verify.pass", "verify.problem", "site.switcher", "theme.light", "theme.logo", "theme.ctrl",
    "theme.previous_page", "theme.previous", "exercises.state_moved",
}


def test_every_language_writes_its_own_sentences() -> None:
    """An entry with the same text as another language's is not translated yet (the whole list: a translator's
    to-do list, TRANSLATING.md), unless it is one of the few that may rightly read the same."""
    texts = {language: entries(language) for language in COURSE_LANGUAGES}
    untranslated = [f"{language} {key} is {other}'s text" for index, language in enumerate(COURSE_LANGUAGES)
                    for key, text in texts[language].items() if key not in SAME_IN_SOME_LANGUAGES
                    for other in COURSE_LANGUAGES[:index] if texts[other].get(key) == text]
    assert untranslated == [], "\n".join(untranslated)


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_every_key_in_every_language_with_the_same_placeholders(language: str) -> None:
    english, other = entries("en"), entries(language)
    assert sorted(set(english) - set(other)) == [], "missing"
    assert sorted(set(other) - set(english)) == [], "not in the English catalog"
    wrong = [key for key in english if fields(english[key]) != fields(other[key])]
    assert wrong == []
    assert all(other[key].strip() for key in other)


@pytest.mark.parametrize("language", ["en", *COURSE_LANGUAGES])
def test_no_template_shows_a_python_repr(language: str) -> None:
    """`{x!r}` would print Python's quotes ('x', None, True) inside a learner's sentence: values are passed through
    i18n.quoted (JSON) or a yes/no message instead."""
    assert [key for key, text in entries(language).items() if "!r}" in text or "!s}" in text] == []


def test_plural_forms_come_in_pairs() -> None:
    for language in COURSE_LANGUAGES:
        keys = set(entries(language))
        stems = {key.rsplit("_", 1)[0] for key in keys if key.endswith(("_one", "_other"))}
        for stem in stems:
            assert {f"{stem}_one", f"{stem}_other"} <= keys, (language, stem)


@pytest.mark.parametrize(("language", "one", "many"), [
    ("de", "(1 Versuch)", "(3 Versuche)"), ("pt", "(1 tentativa)", "(3 tentativas)"),
    ("es", "(1 intento)", "(3 intentos)"), ("en", "(1 attempt)", "(3 attempts)")])
def test_plural_forms_are_chosen_per_count(language: str, one: str, many: str) -> None:
    assert describe(plural("lines.attempts", 1), language) == one
    assert describe(plural("lines.attempts", 3), language) == many


@pytest.mark.parametrize(("language", "shown"), [("de", "1,3"), ("pt", "1,3"), ("es", "1,3"), ("en", "1.3")])
def test_decimal_numbers_follow_the_language(language: str, shown: str) -> None:
    assert number(1.3, language) == shown
    assert message("lines.server_ready", language, seconds=1.3).endswith(f"{shown} s")


def test_nested_messages_and_lists_render_in_the_same_language() -> None:
    label = Message("checks.burst_summary")
    assert message("invariants.not_equal", "en", label=label, expected=4, actual=3) == \
        "burst summary: expected 4, got 3."
    german = message("invariants.not_equal", "de", label=label, expected=4, actual=3)
    assert german.startswith(describe(label, "de") + ":") and "burst summary" not in german
    both = describe(Message("verify.fail", {"mode": "deleted", "problems": [Message("verify.worker_exists")] * 2}))
    assert both.count("the Worker still exists") == 2 and "; " in both


def test_unknown_language_falls_back_to_english_and_unknown_keys_fail() -> None:
    assert message("lines.run_folder", "fr", path="x") == message("lines.run_folder", "en", path="x")
    with pytest.raises(KeyError, match="lines.no_such_line"):
        message("lines.no_such_line", "de")


def first_arguments(source: str, functions: set[str] | None = None) -> set[str]:
    """The string literals that calls in `source` pass first (of the named functions only, if given)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and \
                isinstance(node.args[0].value, str):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if functions is None or name in functions:
                found.add(node.args[0].value)
    return found


def literal_keys() -> set[str]:
    """Every catalog key lib/ names: "<section>.<name>" first arguments (LabError, message, Message, plural …),
    fail("<name>") of domain.invariants, and every check_equal label of lib/ and of the notebooks' cells."""
    sections = {key.split(".")[0] for key in entries("en")}
    found: set[str] = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        source = path.read_text()
        found |= {value for value in first_arguments(source)
                  if re.fullmatch(r"[a-z]+\.[a-z0-9_]+", value) and value.split(".")[0] in sections
                  and not value.endswith((".ipynb", ".js", ".yml", ".json"))}  # file names are no keys
        found |= {f"invariants.{value}" for value in first_arguments(source, {"fail"})}
        found |= {f"checks.{value}" for value in first_arguments(source, {"check_equal"})}
    cells = (PACKAGE_DIR.parents[1] / "notebooks" / "source" / "cells.yml").read_text()
    found |= {f"checks.{label}" for label in re.findall(r'check_equal\("([^"]+)"', cells)}
    return found


def test_every_key_the_code_names_exists() -> None:
    english = entries("en")
    plural_stems = {key.rsplit("_", 1)[0] for key in english if key.endswith(("_one", "_other"))}
    missing = sorted(key for key in literal_keys() if key not in english and key not in plural_stems)
    assert missing == []
    assert len(literal_keys()) > 150 and {"checks.burst_summary", "invariants.no_decision"} <= literal_keys()


def test_a_fourth_language_is_one_catalog_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (catalog.CATALOG_DIR / "es.toml").read_text().replace('language = "es"', 'language = "ca"')
    (tmp_path / "ca.toml").write_text(text.replace("Puerto", "Port"))
    monkeypatch.setenv(catalog.EXTRA_DIRS, str(tmp_path))
    assert "ca" in languages()
    assert entries("ca").keys() == entries("en").keys()
    assert message("lines.server_ready", "ca", seconds=2.5) == message("lines.server_ready", "es", seconds=2.5)
    shutil.rmtree(tmp_path)
    catalog._load.cache_clear()


def test_say_prints_the_sessions_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from reservation_lab.course import session
    from reservation_lab.course.display import say

    say("node_tests", passed=93, failed=0)  # before the setup cell: English
    session.start("pt", tmp_path / "run")
    say("node_tests", passed=93, failed=0)
    assert capsys.readouterr().out.splitlines()[-2:] == ["node tests: 93 passed, 0 failed",
                                                         "testes do Node: 93 aprovados, 0 com falha"]


ERROR_CLASSES = {"LabError", "ToolchainError", "PortBusyError", "DevServerError", "WranglerError", "APIError",
                 "CheckFailed", "VerificationFailed", "InvariantError", "BurstReplayed"}
NOT_PLACEHOLDERS = {"kind", "status", "codes"}  # APIError's own fields


def call_sites() -> list[tuple[str, str, set[str]]]:
    """(where, key, values given) for every call in lib/ that names a catalog key and passes its values
    literally: an error class or message()/plural() with keywords, Message(key, {...}), fail(), check_equal()."""
    sites = []
    for path in PACKAGE_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)) or any(k.arg is None for k in node.keywords):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            key, given = node.args[0].value, {k.arg for k in node.keywords}
            if name == "APIError":
                given -= NOT_PLACEHOLDERS
            where = f"{path.relative_to(PACKAGE_DIR)}:{node.lineno}"
            if name in ERROR_CLASSES | {"message"} and "." in key:
                sites.append((where, key, given))
            elif name == "plural":
                sites.append((where, key, given | {"n"}))
            elif name == "Message" and "." in key:
                values = node.args[1] if len(node.args) > 1 else None
                if values is None or isinstance(values, ast.Dict) and all(isinstance(k, ast.Constant)
                                                                           for k in values.keys):
                    sites.append((where, key, {k.value for k in values.keys} if values else set()))
            elif name == "fail":
                sites.append((where, f"invariants.{key}", given))
            elif name == "check_equal":
                sites.append((where, f"checks.{key}", given))
    return sites


def test_every_call_passes_exactly_the_placeholders_of_its_template() -> None:
    english = entries("en")
    wrong = []
    for where, key, given in call_sites():
        template = english.get(key) or english.get(f"{key}_other")
        if template is None:
            wrong.append(f"{where}: no key {key}")
        elif {name for name, _ in fields(template)} != given:
            wrong.append(f"{where}: {key} wants {sorted(n for n, _ in fields(template))}, gets {sorted(given)}")
    assert wrong == []
    assert len(call_sites()) > 120


def test_errors_survive_pickle_and_copy() -> None:
    import copy
    import pickle

    from reservation_lab.cloud.api import APIError
    from reservation_lab.errors import BurstReplayed, PortBusyError

    for error in (PortBusyError("errors.port_busy", port=1, host="127.0.0.1"),
                  BurstReplayed(plural("invariants.all_replayed", 10)),
                  APIError("cloud.api_not_json", kind="server", status=502, what=Message("cloud.what_settings"),
                           code=502)):
        for again in (pickle.loads(pickle.dumps(error)), copy.copy(error)):
            assert type(again) is type(error) and str(again) == str(error)
            assert again.localized("de") == error.localized("de") != str(error)
    assert pickle.loads(pickle.dumps(error)).status == 502
