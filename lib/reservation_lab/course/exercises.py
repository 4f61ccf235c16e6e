"""The exercises notebook's helpers: grade a learner's Worker (`lab.grade`), show the hints asked for (`lab.hint`), stop
the grading server (`lab.stop_grading`); everything printed in the learner's language."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from reservation_lab.course.session import current
from reservation_lab.domain.checker import explain
from reservation_lab.errors import LabError
from reservation_lab.exercises import limits
from reservation_lab.exercises.catalog import exercise, exercise_number
from reservation_lab.i18n import describe, message, number, plural
from reservation_lab.runtime.devserver import NOTHING_LEFT

if TYPE_CHECKING:  # the grader (and hypothesis) load with the first grade, not in every learner's kernel
    from reservation_lab.exercises.clients import ClientTrial
    from reservation_lab.exercises.grader import Grade
    from reservation_lab.exercises.judge import Sent
    from reservation_lab.exercises.transfers import TransferTrial

HINTS = 3  # hints per exercise: [hints] <name>_1 … <name>_3 in every catalog


class GradeFailed(LabError):
    """A reference solution that did not pass its grade: a defect of the course, so the run stops there."""


def grade(name: str, solution: bool = False, seed: int = 0, workloads: int = limits.EXAMPLES,
          seconds: float = limits.BUDGET) -> Grade:
    """Grade the exercise's file as the cell above wrote it (`solution`: the reference solution instead) on this
    session's grading server (at most `workloads` generated workloads, `seconds` of search) and show the result.
    A learner's failed grade is a result, not an error (Run All goes on to the next exercise); a reference solution
    that fails raises GradeFailed."""
    session = current()
    task = exercise(name)
    learners = session.run.root / "exercises" / task.file_name
    source = task.solution(session.language) if solution else learners.read_text()
    if session.grader is None:
        from reservation_lab.exercises.grader import Grader

        session.grader = Grader(session.run.root / "grading", ctx=session.context)
    result = session.grader.grade(task, source, seed=seed, examples=workloads, budget=seconds)
    show_grade(result, session.language)
    session.ledger.record(f"grade_{name}", result.passed, "passed", result.failure.kind if result.failure else "passed")
    if solution and not result.passed:
        raise GradeFailed("exercises.grade_failed_short", name=name, number=exercise_number(name),
                          problem=result.failure.message)
    return result


def show_grade(result: Grade, language: str) -> None:
    """A passed grade in one line; a failed one with its smallest workload, the answers and the checker's words."""
    def say(key: str, **values: object) -> str:
        return message(key, language, **values)

    counts = {"workloads": plural("exercises.workloads", result.trials),
              "requests": plural("exercises.requests", result.requests),
              "restarts": plural("exercises.restarts", result.restarts)}
    client = exercise(result.exercise).client
    if result.passed:
        print(say("exercises.grade_passed_client" if client else "exercises.grade_passed", name=result.exercise,
                  number=exercise_number(result.exercise), seed=result.seed, seconds=number(result.seconds, language),
                  **counts))
        if result.out_of_time:
            print(say("exercises.grade_out_of_time"))
        return
    failure = result.failure
    assert failure is not None
    print(say("exercises.grade_failed", name=result.exercise, number=exercise_number(result.exercise),
              problem=failure.message))
    if result.smallest is None:
        return
    if client:
        print()
        print(say("exercises.smallest_calls", seed=result.seed, workloads=counts["workloads"]))
        for line in _client_lines(result.smallest, language):  # type: ignore[arg-type]
            print(line)
        return
    if exercise(result.exercise).transfers:
        print()
        print(say("exercises.smallest_transfers", seed=result.seed, workloads=counts["workloads"]))
        for line in _transfer_lines(result.smallest, language):  # type: ignore[arg-type]
            print(line)
        return
    print()
    print(say("exercises.smallest", seed=result.seed, workloads=counts["workloads"]))
    for number_, round_ in enumerate(result.smallest.workload.rounds, 1):
        print(say("exercises.round", round=number_))
        for row in _rows([one for one in result.smallest.sent if one.round == number_], language):
            print("  " + row)
        if round_.restart:
            print("  " + say("exercises.restart_after"))
        if number_ == failure.round:
            break
    if failure.check is not None or failure.why is not None:
        print()
        one_round = failure.check is not None or failure.round == 1  # "these rounds, from the first" for two or more
        print(say("exercises.why" if one_round else "exercises.why_rounds"))
        if failure.check is not None:
            print(explain(failure.check, language=language))
        else:
            print(_sentence(describe(failure.why, language)))


def _sentence(text: str) -> str:
    """A checker's phrase (written to sit inside a sentence) as a sentence of its own."""
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _rows(sent: list[Sent], language: str) -> list[str]:
    """The requests of one round as an aligned table: requestId, workshop, seats, kind, HTTP, answer."""
    return _table(("request", "workshop", "seats", "kind", "http", "answer"),
                  [[one.request_id, one.workshop, str(one.seats) if one.valid and not one.cancels else "–",
                    message(f"exercises.kind_{one.kind}", language) + (f" ({one.person})" if one.person else ""),
                    str(one.code) if one.code is not None else "–",
                    _answer(one, language)] for one in sent], language)


def _table(columns: tuple[str, ...], rows: list[list[str]], language: str) -> list[str]:
    """Rows under the catalog's column headings, each column as wide as its widest cell (the last one free)."""
    head = [message(f"exercises.column_{key}", language) for key in columns]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head) - 1)]
    return ["  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]])
            for row in [head, *rows]]


def _answer(one: Sent, language: str) -> str:
    """The answer's decision fields (an invalid request: the body sent, then the answer)."""
    sent = "" if one.valid else f"{one.body} → "
    if one.code is None:
        return sent + message("exercises.no_answer_short", language)
    return sent + _answer_fields(one.answer)


def _client_lines(trial: ClientTrial, language: str) -> list[str]:
    """Each reservation of a client trial: its attempts, what the network did to each, what reserve gave back."""
    from reservation_lab.exercises.clients import CALL_SECONDS, shown
    from reservation_lab.exercises.lossy import DELAY

    def answer(pair: tuple[int, dict[str, object]]) -> str:
        code, body = pair
        return f"{code} " + json.dumps({key: body[key] for key in ("status", "reserved", "replayed") if key in body})

    lines = []
    for outcome in trial.outcomes:
        lines.append(message("exercises.call", language, call=outcome.call, seats=outcome.seats))
        for attempt in outcome.attempts:
            answers = [answer(pair) for pair in attempt.answers]
            unanswered = not answers and attempt.fault not in ("drop_request", "refuse")  # the Worker did not answer
            what = message("exercises.fault_no_answer" if unanswered else f"exercises.fault_{attempt.fault or 'none'}",
                           language, answer=answers[-1] if answers else "", answers=", ".join(answers),
                           seconds=number(DELAY, language))
            lines.append("  " + message("exercises.attempt", language, number=attempt.number, what=what,
                                        rid=attempt.request_id or message("exercises.no_request_id", language)))
        said = (message("exercises.hung", language, seconds=round(CALL_SECONDS)) if outcome.hung else
                message("exercises.raised", language, error=outcome.error) if outcome.error is not None else
                message("exercises.returned", language, value=shown(outcome.returned)))
        lines.append("  " + said)
    return lines


def _transfer_lines(trial: TransferTrial, language: str) -> list[str]:
    """A transfer trial: its reservations and their answers, then each transfer, what it was sent as and its answers."""
    from reservation_lab.exercises.transfers import shown_answer

    lines = ["  " + row for row in _table(
        ("request", "workshop", "seats", "http", "answer"),
        [[one.rid, one.workshop, str(one.seats), str(one.code) if one.code is not None else "–",
          _answer_fields(one.answer)] for one in trial.booked], language)]
    lines.extend("  " + message("exercises.transfer_cancelled", language, rid=one.rid, code=one.cancelled)
                 for one in trial.booked if one.cancelled is not None)
    lines.append(message("exercises.transfers_round", language))
    for transfer in trial.transfers:
        extra = "".join(message(f"exercises.transfer_{what}", language)
                        for what, on in (("twins", transfer.twins), ("restart", transfer.restart),
                                         ("later", transfer.later)) if on)
        lines.append("  " + message("exercises.transfer_line", language, transfer=transfer.transfer_id,
                                    rid=transfer.booked.rid, seats=transfer.booked.seats,
                                    source=transfer.booked.workshop, target=transfer.target, extra=extra))
        answers = [shown_answer(code, answer) if code is not None else message("exercises.no_answer_short", language)
                   for code, answer in transfer.answers]
        lines.append("    " + message("exercises.transfer_answers", language, answers="; ".join(answers)))
    return lines


def _answer_fields(answer: dict[str, object]) -> str:
    """An answer's decision fields, as JSON."""
    return json.dumps({key: answer[key] for key in ("status", "reserved", "replayed", "error") if key in answer},
                      ensure_ascii=False)


def hint(name: str, count: int = 0) -> None:
    """Print the exercise's first `count` hints: they add up (2 shows the first and the second), and 0, the hint
    cell's committed value, prints nothing, so Run All shows no hint before the learner asks for one."""
    exercise(name)  # an unknown name: a clear error before anything is shown
    language = current().language
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise LabError("hints.count", count=repr(count), hints=HINTS)
    for shown in range(1, min(count, HINTS) + 1):
        print(f"{shown}/{HINTS}: " + message(f"hints.{name}_{shown}", language))
    if count > HINTS:
        task = exercise(name)
        print(message("hints.no_more" if task.from_the_lab else "hints.no_more_new", language, name=name))


def stop_grading() -> dict[str, object]:
    """Stop the grading server; say whether any process or the port is left."""
    session = current()
    grader, session.grader = session.grader, None
    if grader is None:  # nothing was graded: no server ever ran
        return dict(NOTHING_LEFT)
    grader.close()
    return grader.leftovers()
