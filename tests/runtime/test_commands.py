"""runtime.commands: the command lines the notebook shows before it runs them."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path

import pytest

from reservation_lab.runtime.commands import announce, wrangler_words
from reservation_lab.runtime.context import QUIET, Context


class SlowStream(io.StringIO):
    """A stream whose every write yields to other threads, as a kernel's stdout may: interleaving shows at once."""

    def write(self, text: str) -> int:
        written = super().write(text)
        threading.Event().wait(0.001)
        return written


SHOWING = Context(show_commands=True)


def test_servers_started_at_once_announce_one_whole_line_each(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers started from several threads (the grader, a workbench, the session's) announce their command lines
    at once; no two may run into each other."""
    words = [wrangler_words("dev", "--port", str(port)) for port in range(8000, 8040)]
    threads = [threading.Thread(target=announce, args=(tmp_path, w), kwargs={"ctx": SHOWING}) for w in words]
    shown = SlowStream()
    monkeypatch.setattr(sys, "stdout", shown)  # here, not in a fixture: pytest's capture resets sys.stdout between
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    monkeypatch.undo()
    lines = shown.getvalue().splitlines()
    assert len(lines) == len(words)
    assert sorted(line.rsplit(" ", 1)[1] for line in lines) == sorted(str(port) for port in range(8000, 8040))
    assert all(line.count("$ npx wrangler dev") == 1 for line in lines)


def test_what_is_shown_is_the_contexts_choice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """QUIET shows nothing; a showing context prints the line; a cloud command carries the context's mark, a local
    one never does; the line is returned either way."""
    words = wrangler_words("deploy")
    assert announce(tmp_path, words, cloud=True, ctx=QUIET) == announce(tmp_path, words, ctx=SHOWING)
    marked = SHOWING.with_(mark="[rehearsal]")
    announce(tmp_path, words, cloud=True, ctx=marked)
    announce(tmp_path, wrangler_words("dev"), ctx=marked)
    assert capsys.readouterr().out.splitlines() == [
        f"[{tmp_path}] $ npx wrangler deploy", f"[rehearsal] [{tmp_path}] $ npx wrangler deploy",
        f"[{tmp_path}] $ npx wrangler dev"]
