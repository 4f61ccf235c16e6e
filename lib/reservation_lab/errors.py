"""Errors a learner can cause, each a catalog message: what happened and what to do next.

An error carries its catalog key and values (`error.message`), so a notebook shows the whole message in the
learner's language (`error.localized()`); `str(error)` is the English text, for logs, scripts and `%tb`.
"""

from __future__ import annotations

from typing import Any

from reservation_lab.i18n import REFERENCE, Message, describe


class Localized:
    """A catalog message in an exception: English in str(), any language via localized()."""

    message: Message

    def __init__(self, key: str | Message, **values: Any) -> None:
        self.message = key if isinstance(key, Message) else Message(key, values)
        super().__init__(describe(self.message, REFERENCE))

    def localized(self, language: str | None = None) -> str:
        """The whole message in `language` (default: English; the course passes the session's)."""
        return describe(self.message, language)

    def __reduce__(self) -> tuple:
        """Pickle and copy rebuild the error from its message (its English text is no catalog key)."""
        return type(self), (self.message,), self.__dict__


class LabError(Localized, RuntimeError):
    """Base class: one message a learner can act on. `LabError("errors.<name>", **values)`."""


class ToolchainError(LabError):
    """Node 22 or the pinned wrangler is missing."""


class PortBusyError(LabError):
    """The requested loopback port is already in use."""


class DevServerError(LabError):
    """`wrangler dev` exited or did not become healthy."""


class WranglerError(LabError):
    """A wrangler subcommand failed."""


class PausedOnPurpose(LabError):
    """A Run All stopped on purpose (before step 7: look at the dashboard first); nothing failed."""


class InvariantError(Localized, AssertionError):
    """A lab invariant does not hold; the message names which and how."""


class BurstReplayed(InvariantError):
    """Every answer of a burst was a replay: its requestIds had been decided before (e.g. the cell ran twice)."""
