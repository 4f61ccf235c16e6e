"""The helpers' lines in the learner's language: every line in every language, numbers as each writes them."""

from __future__ import annotations

import string

import pytest

from reservation_lab.i18n import messages


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def catalogs() -> dict[str, dict[str, str]]:
    """Every sentence catalog of i18n.messages (the module-level dicts keyed by language)."""
    found = {name: value for name, value in vars(messages).items()
             if name.isupper() and isinstance(value, dict) and set(value) & set(messages.LANGUAGES)}
    found.update({f"lines_by_key[{key}]": catalog for key, catalog in messages.lines_by_key.items()})
    return found


def test_every_catalog_is_there_in_every_language_with_the_same_placeholders() -> None:
    found = catalogs()
    assert {"SKIPPED_STEP", "FRIENDLY_REPLAYED_BURST", "SERVER_READY", "FILE_WRITTEN", "ATTEMPTS"} <= set(found)
    for name, catalog in found.items():
        assert set(catalog) == set(messages.LANGUAGES), name
        assert len({frozenset(placeholders(t)) for t in catalog.values()}) == 1, name


@pytest.mark.parametrize(("language", "shown"), [("de", "1,3"), ("pt", "1,3"), ("es", "1,3"), ("en", "1.3")])
def test_decimal_numbers_follow_the_language(language: str, shown: str) -> None:
    assert messages.number(1.25, language) in ("1,2", "1,3", "1.2", "1.3")
    assert messages.number(1.3, language) == shown
    assert messages.text(messages.SERVER_READY, language, seconds=1.3).endswith(f"{shown} s")


def test_say_prints_the_notebooks_language(capsys: pytest.CaptureFixture[str]) -> None:
    from reservation_lab.course.display import say
    from reservation_lab.course.language import set_language

    set_language("pt")
    try:
        say("node_tests", passed=93, failed=0)
    finally:
        set_language("en")
    assert capsys.readouterr().out.strip() == "testes do Node: 93 aprovados, 0 com falha"
