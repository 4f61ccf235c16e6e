"""`check_history`: the phases of the check, in the order in which they record problems."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping
from typing import Any

from reservation_lab.domain.checker.chain import final_climb, link_accepted, place_rejections, serial_steps
from reservation_lab.domain.checker.fill import fill_holes
from reservation_lab.domain.checker.history import Response, read_history
from reservation_lab.domain.checker.status import check_after, starting_state, wanted_undecided
from reservation_lab.domain.checker.verdict import CheckResult, Problems
from reservation_lab.i18n import REFERENCE, describe


def check_history(
    responses: Iterable[Response],
    before: Mapping[str, Any],
    after: Mapping[str, Any] | None = None,
    *,
    prior: Iterable[Response] | None = None,
) -> CheckResult:
    """Decide whether some serial order of the requests explains every response of a burst.

    `responses`: `Decision` objects (from `send_burst`) and/or response body dicts (requestId, seats,
    status, reserved, replayed), in any order. `before` / `after`: status dicts (capacity, reserved,
    acceptedRequests, rejectedRequests, acceptedSeats) read before and after the burst; `after` is
    optional. `prior`: answers from before the burst, for replays of requestIds decided earlier.

    The first contradiction (in the order: broken answers, then along the counter, then the durable
    status) is `problem`; all of them are in `problems`. `order` is empty unless `ok`.
    """
    collecting = gc.isenabled()
    gc.disable()  # one record per response; measured: with the collector on, bench_checker's check takes 1.7x as long
    try:
        return _check(responses, before, after, prior)
    finally:
        if collecting:
            gc.enable()


def _check(responses: Iterable[Response], before: Mapping[str, Any], after: Mapping[str, Any] | None,
           prior: Iterable[Response] | None) -> CheckResult:
    problems = Problems()
    capacity, start = starting_state(before, after, problems)
    history = read_history(responses, prior, capacity, problems)
    n_accepted, n_rejected = len(history.accepted), len(history.rejected)
    # 1. The accepted answers in counter order; the holes between them are left for undecided requests.
    chain = link_accepted(history.accepted, start, capacity, problems)
    holes, decided_end = list(chain.holes), chain.end
    # 2. The climb after the last accepted answer, to the durable reserved or the highest rejection state.
    climb = final_climb(chain, history.rejected_states, after)
    end = decided_end if climb is None else climb.hi
    if climb is not None:
        holes.append(climb)
    # 3. Undecided requests fill the holes, passing through every rejection state inside them.
    links, applied, end = fill_holes(chain.links, holes, history.rejected_states, history.unknown, capacity - end,
                                     wanted_undecided(before, after, n_accepted, n_rejected), problems,
                                     decided_end, end)
    # 4. Each rejection saw a state of the chain that had no room; 5. the durable status agrees.
    rejected_at = place_rejections(history.rejected, links, start, capacity, problems)
    extra_rejected = []
    if after is not None:
        used = {id(rec) for rec in applied}
        leftover = [rec for rec in history.unknown if id(rec) not in used]
        extra_rejected = check_after(after, before, capacity, end, decided_end, n_accepted, n_rejected, applied,
                                     leftover, problems)
    messages = problems.messages()
    ok = not messages
    steps = serial_steps(start, end, links, rejected_at, applied, extra_rejected) if ok else []
    return CheckResult(
        ok=ok,
        order=[step.request_id for step in steps],
        problem=describe(messages[0], REFERENCE) if messages else None,
        steps=steps,
        capacity=capacity,
        start=start,
        end=end,
        accepted=n_accepted,
        rejected=n_rejected,
        unknown=[rec.request_id for rec in history.unknown],
        applied_unknown=[rec.request_id for rec in applied],
        problem_messages=messages,
    )
