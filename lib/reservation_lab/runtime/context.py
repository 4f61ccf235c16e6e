"""What a helper needs to know about the session it works for, passed to it explicitly.

A `Context` is the course session's settings as the lower layers see them, the way an httpx `Client` carries its
own: the language every line is printed in, whether command lines are shown (a notebook kernel: yes; scripts,
tests, drills: no) with the rehearsal's mark before the ones that reach an account, and where those commands go
(`CloudEnvironment`: the learner's own, or the Cloudflare double's). Helpers take `ctx: Context = QUIET` (English,
nothing shown, the real environment); the course's `Session` owns one and passes it. Nothing here is global: two
sessions in one process each pass their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from reservation_lab.i18n import REFERENCE, message
from reservation_lab.runtime.cloud_env import REAL, CloudEnvironment


@dataclass(frozen=True)
class Context:
    """A session's language, command display and cloud environment (frozen: derive with `with_`)."""

    language: str = REFERENCE
    show_commands: bool = False
    mark: str = ""  # put before every shown command line that reaches a Cloudflare account ("" for none)
    cloud: CloudEnvironment = field(default=REAL)

    def say(self, key: str, **values: Any) -> str:
        """One catalog sentence in this context's language."""
        return message(key, self.language, **values)

    def with_(self, **changes: Any) -> Context:
        return replace(self, **changes)


QUIET = Context()
