"""course.session: the session is the only context. Two sessions in one process, in different languages and modes (a
learner's, a teacher's record-only), each keep their own language, ledger, command display and cloud environment;
nothing leaks from one into the other, and nothing below the course layer keeps any of it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reservation_lab import course as lab
from reservation_lab.course import session as sessions
from reservation_lab.domain.checker import check_history, explain
from reservation_lab.domain.ledger import LEDGER_FILE
from reservation_lab.errors import InvariantError
from reservation_lab.i18n import message
from reservation_lab.runtime.cloud_env import REAL
from reservation_lab.runtime.commands import announce, wrangler_words
from reservation_lab.runtime.context import QUIET


def test_two_sessions_keep_their_own_language_ledger_and_record_only_mode(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    teacher = lab.start("de", tmp_path / "teacher", record_only=True)  # a teacher's run: failures recorded, printed
    lab.check_equal("naive_serial", True, False)
    assert message("invariants.no", "de") in capsys.readouterr().out  # "nein", printed: the run goes on
    learner = lab.start("es", tmp_path / "learner")  # the next setup cell: a learner's run, in Spanish
    with pytest.raises(InvariantError) as raised:
        lab.check_equal("atomic_serial", True, False)
    assert raised.value.message.key == "invariants.not_equal"
    assert "sí" in raised.value.localized(learner.language)
    assert [e["label"] for e in teacher.ledger.entries] == ["naive_serial"]  # the learner's check is not there
    assert [e["label"] for e in learner.ledger.entries] == ["atomic_serial"]
    assert (teacher.run.root / LEDGER_FILE).exists() and (learner.run.root / LEDGER_FILE).exists()
    assert (teacher.context.language, teacher.ledger.record_only) == ("de", True)  # the old session kept its own
    assert (learner.context.language, learner.ledger.record_only) == ("es", False)


def test_each_sessions_context_is_passed_and_nothing_else_is_read(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Used at once from two threads, each session's context says how lines are shown; the lower layers' default
    (QUIET) is English, shows nothing and uses the real environment, whatever session is current."""
    first = lab.start("pt", tmp_path / "first")
    second = sessions.Session(run=first.run, context=first.context.with_(language="de", show_commands=False))
    shown_first = first.context.with_(show_commands=True)
    result = check_history([], {"capacity": 4, "reserved": 0, "acceptedRequests": 0, "rejectedRequests": 0,
                                "acceptedSeats": 0})
    outputs: dict[str, str] = {}

    def explain_in(session: sessions.Session) -> None:
        outputs[session.language] = explain(result, language=session.language)

    threads = [threading.Thread(target=explain_in, args=(session,)) for session in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outputs == {"pt": explain(result, language="pt"), "de": explain(result, language="de")}
    assert outputs["pt"] != outputs["de"] != explain(result)  # explain's own default: English
    assert lab.explain(result) == outputs["pt"]  # the facade passes the current session's language
    announce(tmp_path, wrangler_words("dev"), ctx=second.context)
    announce(tmp_path, wrangler_words("dev"), ctx=shown_first)
    announce(tmp_path, wrangler_words("dev"))  # QUIET: what a script sees
    assert capsys.readouterr().out.count("$ npx wrangler dev") == 1
    assert QUIET.language == "en" and not QUIET.show_commands and QUIET.cloud is REAL
    assert sessions.context() is first.context and sessions.language() == "pt"


def test_before_the_setup_cell_helpers_run_quiet_and_a_new_setup_cell_replaces_the_session(tmp_path: Path) -> None:
    assert sessions.current_or_none() is None and sessions.context() is QUIET and sessions.language() == "en"
    first = lab.start("es", tmp_path / "a")
    second = lab.start("de", tmp_path / "b")
    assert sessions.current() is second and sessions.context().language == "de"
    assert first.context.language == "es"  # stopped, not changed
