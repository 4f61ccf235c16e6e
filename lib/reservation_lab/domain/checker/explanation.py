"""`explain`: a check's verdict as a few sentences in the notebook's language (the words are in
the `checker` section of the `i18n` catalogs)."""

from __future__ import annotations

from reservation_lab.domain.checker.verdict import CheckResult
from reservation_lab.i18n import REFERENCE, Message, describe, plural

MORE_PROBLEMS = 3  # contradictions listed after the first; the rest are counted ("… and N more")
ORDER_STEPS = 12  # steps of the serial order shown


def explain(result: CheckResult, limit: int | None = None, language: str = REFERENCE) -> str:
    """A few sentences in `language` (English by default and where a catalog lacks one): the serial order that explains
    the answers (up to `limit` steps, default 12), or the first contradiction and up to `limit` more (default 3,
    then "… and N more")."""
    if not result.ok:
        return _explain_problems(result, MORE_PROBLEMS if limit is None else limit, language)
    undecided: Message | str = ""
    if result.unknown and result.applied_unknown:
        undecided = plural("checker.explain_undecided", len(result.unknown), applied=len(result.applied_unknown))
    elif result.unknown:
        undecided = plural("checker.explain_undecided_none", len(result.unknown))
    counts = {"capacity": result.capacity, "undecided": undecided,
              "accepted": plural("checker.explain_accepted", result.accepted),
              "rejected": plural("checker.explain_rejected", result.rejected)}
    if result.start == result.end:  # e.g. a burst of replays: no seat taken
        summary = Message("checker.explain_ok_unchanged", {"start": result.start, **counts})
    else:
        summary = Message("checker.explain_ok", {"start": result.start, "end": result.end, **counts})
    lines = [describe(summary, language)]
    if result.steps:
        lines.append(_explain_order(result, ORDER_STEPS if limit is None else limit, language))
    return "\n".join(lines)


def _explain_problems(result: CheckResult, limit: int, language: str) -> str:
    messages = result.problem_messages  # rendered only as far as `limit` shows them
    first, more = (describe(messages[0], language), messages[1:]) if messages else (
        result.problem, result.problems[1:])
    lines = [describe(Message("checker.explain_failed", {"problem": first}), language)]
    if more:
        lines.append(describe(plural("checker.explain_more", len(more)), language))
        lines.extend(f"  - {describe(p, language) if isinstance(p, Message) else p}" for p in more[:limit])
        if len(more) > limit:
            lines.append("  " + describe(plural("checker.explain_and_more", len(more) - limit), language))
    return "\n".join(lines)


def _explain_order(result: CheckResult, limit: int, language: str) -> str:
    described = []
    at = result.start
    undecided_mark = describe(Message("checker.explain_undecided_mark", {}), language)
    for step in result.steps[:limit]:
        mark = undecided_mark if step.unknown else ""
        if step.status == "accepted":
            described.append(f"{step.request_id} {at}→{step.reserved}{mark}")
            at = step.reserved
        else:
            described.append(describe(Message("checker.explain_step_rejected", {
                "rid": step.request_id, "reserved": step.reserved, "mark": mark}), language))
    tail = (describe(plural("checker.explain_order_tail", len(result.steps) - limit), language)
            if len(result.steps) > limit else "")
    return describe(Message("checker.explain_order", {"steps": ", ".join(described), "tail": tail}), language)
