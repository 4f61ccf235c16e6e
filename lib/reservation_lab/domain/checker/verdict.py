"""The checker's verdict (`CheckResult`, `Step`) and the contradictions it collects on the way (`Problems`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from reservation_lab.i18n import REFERENCE, Message, describe


class Step(NamedTuple):
    """One request in the serial order: accepted moves the counter to `reserved`; rejected saw `reserved`."""

    request_id: str
    seats: int
    status: str
    reserved: int
    unknown: bool = False  # an undecided request the checker let take effect (or be rejected)


@dataclass
class CheckResult:
    """The verdict. When `ok`, `order` (and `steps`) is a serial order that explains every answer.

    `problem` (the first) and `problems` are English texts; `problem_messages` are the same problems as `Message`s
    (template key and values), for `describe(message, language)` or `explain(result, language=...)`. Unless given,
    `problems` is rendered from `problem_messages`.
    """

    ok: bool
    order: list[str]
    problem: str | None
    problems: list[str] = None  # type: ignore[assignment]  # None: rendered from problem_messages
    steps: list[Step] = field(default_factory=list)
    capacity: int = 0
    start: int = 0
    end: int = 0  # the counter at the end of the chain
    accepted: int = 0  # decisions of this burst (undecided requests not included)
    rejected: int = 0
    unknown: list[str] = field(default_factory=list)  # undecided requestIds
    applied_unknown: list[str] = field(default_factory=list)  # ...of which the order lets these take effect
    problem_messages: list[Message] = field(default_factory=list)  # `problems`, as template keys and values

    def __post_init__(self) -> None:
        if self.problems is None:
            self.problems = [describe(message, REFERENCE) for message in self.problem_messages]


# The phases of a problem, the first part of its sort key: the order in which `problems` lists them.
ANSWERS, COUNTER, DURABLE = 0, 1, 2


class Problems:
    """Contradictions with a sort key: (phase, counter value or input index, sequence), kept as Messages.

    Only the template key and the values are recorded; the texts are rendered from them.
    """

    def __init__(self) -> None:
        self.items: list[tuple[int, int, int, Message]] = []

    def add(self, phase: int, key: int, template: str | Message, **values: Any) -> None:
        """Record the problem `template` (a catalog key, with `values`) or a ready Message."""
        message = template if isinstance(template, Message) else Message(f"checker.{template}", values)
        self.items.append((phase, key, len(self.items), message))

    def messages(self) -> list[Message]:
        return [message for *_, message in sorted(self.items)]
