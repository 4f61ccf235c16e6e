"""runtime.commands: the command lines the notebook shows before it runs them."""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reservation_lab.runtime.commands import announce, show_commands, wrangler_words


class SlowStream(io.StringIO):
    """A stream whose every write yields to other threads, as a kernel's stdout may: interleaving shows at once."""

    def write(self, text: str) -> int:
        written = super().write(text)
        threading.Event().wait(0.001)
        return written


@pytest.fixture
def showing() -> Iterator[None]:
    show_commands(True)
    yield
    show_commands(False)


def test_servers_started_at_once_announce_one_whole_line_each(showing: None, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The race starts both dev servers from two threads; their command lines must not run into each other."""
    words = [wrangler_words("dev", "--port", str(port)) for port in range(8000, 8040)]
    threads = [threading.Thread(target=announce, args=(tmp_path, w)) for w in words]
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
