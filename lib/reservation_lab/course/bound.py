"""The lower layers' helpers as the notebook's cells call them: `lab.deploy(run)` is `cloud.steps.deploy(run,
ctx=<the session's context>)`. Each wrapper passes what the current session carries — its context (language,
command display, cloud environment), its ledger, its language — so the cells keep their short form while nothing
below the course layer keeps any state. Before the setup cell they run QUIET (English, nothing shown, the real
environment), as in a script. A value passed by the caller wins."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from reservation_lab.cloud import accounts, steps
from reservation_lab.course.session import context, current_or_none
from reservation_lab.domain import burst, checker, client, invariants
from reservation_lab.race import demo
from reservation_lab.runtime import nodetests, wrangler


def _passing(fn: Callable[..., Any], what: Callable[[], dict[str, Any]]) -> Callable[..., Any]:
    """`fn` with the keyword arguments `what()` gives at call time (the caller's own win); its name and docstring."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **{**what(), **kwargs})

    return call


def _ctx() -> dict[str, Any]:
    return {"ctx": context()}


def _cloud() -> dict[str, Any]:
    return {"cloud": context().cloud}


def _language() -> dict[str, Any]:
    return {"language": context().language}


def _ledger() -> dict[str, Any]:
    session = current_or_none()
    return {"ledger": session.ledger if session else None, "language": context().language}


def choose_account(identity: accounts.Identity, name: str, **kwargs: Any) -> str:
    """accounts.choose_account; the session keeps the chosen account's ID."""
    chosen = accounts.choose_account(identity, name, **kwargs)
    session = current_or_none()
    if session is not None:
        session.account_id = chosen
    return chosen


login = _passing(steps.login, _ctx)
whoami = _passing(steps.whoami, _ctx)
logout = _passing(steps.logout, _ctx)
deploy = _passing(steps.deploy, _ctx)
wait_until_ready = _passing(steps.wait_until_ready, _ctx)
delete_worker = _passing(steps.delete_worker, _ctx)
verify = _passing(steps.verify, _ctx)
dry_run = _passing(wrangler.dry_run, _ctx)
run_node_tests = _passing(nodetests.run_node_tests, _ctx)
race_naive_and_atomic = _passing(demo.race_naive_and_atomic, _ctx)
send_burst = _passing(burst.send_burst, _cloud)
LabClient = _passing(client.LabClient, _cloud)  # noqa: N816 - the class's name, as cells write it
explain = _passing(checker.explain, _language)
check_equal = _passing(invariants.check_equal, _ledger)
