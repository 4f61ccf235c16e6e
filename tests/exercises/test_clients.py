"""exercises.clients: the client exercise's judge on hand-made logs (what the network saw, what reserve returned),
each broken promise with its class; the first decision of a requestId is its first answer that is no replay."""

from __future__ import annotations

import pytest

from reservation_lab.exercises.clients import Outcome, first_decision, judge, load_reserve
from reservation_lab.exercises.lossy import Attempt

ACCEPTED = {"requestId": "r-a", "status": "accepted", "reserved": 2, "replayed": False}
REPLAYED = {**ACCEPTED, "replayed": True}


def attempt(number: int, rid: str | None, fault: str = "", answers=(), arrived: float = 0.0,
            ended: float = 0.0, call: int = 1) -> Attempt:
    return Attempt(call, number, fault, "POST", "/workshops/w/reservations", rid, arrived, ended, list(answers))


def outcome(call: int, attempts: list[Attempt], returned=None, error: str | None = None) -> Outcome:
    return Outcome(call, 2, attempts, returned, error)


def kind(outcomes: list[Outcome], strangers: list[Attempt] | None = None) -> str | None:
    failure = judge(outcomes, strangers or [], "http://127.0.0.1:9", "w")  # decided before the status is read
    return failure.kind if failure else None


def test_a_replay_answered_first_does_not_hide_the_first_decision() -> None:
    attempts = [attempt(1, "r-a", "duplicate", [(201, REPLAYED), (201, ACCEPTED)])]
    assert first_decision("r-a", attempts) == ACCEPTED
    assert first_decision("r-b", attempts) is None


def test_a_retry_under_a_new_request_id_is_named() -> None:
    retried = outcome(1, [attempt(1, "r-a", "drop_answer", [(201, ACCEPTED)]), attempt(2, "r-b", "", [(201, {})])],
                      returned={"requestId": "r-b", "status": "accepted", "reserved": 4})
    assert kind([retried]) == "new_request_id"


def test_two_reservations_under_one_request_id_are_named_before_anything_else() -> None:
    one = outcome(1, [attempt(1, "r-a", "", [(201, ACCEPTED)])], returned=ACCEPTED)
    two = outcome(2, [attempt(1, "r-a", "", [(201, REPLAYED)], call=2)], returned=REPLAYED)
    assert kind([one, two]) == "shared_request_id"


def test_a_request_sent_around_the_given_client_is_named() -> None:
    assert kind([outcome(1, [], returned=ACCEPTED)], strangers=[attempt(1, "r-a", call=0)]) == "own_client"


def test_raising_is_giving_up() -> None:
    lost = outcome(1, [attempt(1, "r-a", "drop_answer", [(201, ACCEPTED)])], error="RemoteProtocolError: closed")
    assert kind([lost]) == "gave_up"


@pytest.mark.parametrize("returned", [
    {"requestId": "r-a", "status": "rejected", "reserved": None},  # a lost answer taken for a refusal
    {"error": "bad gateway"},  # not a decision of the Worker's
    "accepted",  # not the Worker's JSON
])
def test_anything_but_the_first_decision_is_a_wrong_decision(returned) -> None:
    lost = outcome(1, [attempt(1, "r-a", "gateway_error", [(201, ACCEPTED)])], returned=returned)
    assert kind([lost]) == "wrong_decision"


def test_a_decision_the_worker_never_made_is_wrong() -> None:
    never = outcome(1, [attempt(1, "r-a", "drop_request")], returned=ACCEPTED)
    failure = judge([never], [], "http://127.0.0.1:9", "w")
    assert failure is not None and failure.kind == "wrong_decision"
    assert failure.message.key == "exercises.class_invented_decision"  # not "the first decision was null"


def test_a_retry_at_once_after_a_failure_is_named_and_a_wait_is_not() -> None:
    def retried(gap: float) -> Outcome:
        return outcome(1, [attempt(1, "r-a", "refuse", arrived=1.0, ended=1.001),
                           attempt(2, "r-a", "", [(201, ACCEPTED)], arrived=1.001 + gap, ended=1.1 + gap)],
                       returned=REPLAYED)

    assert kind([retried(0.002)]) == "no_backoff"
    failure = judge([retried(0.02)], [], "http://127.0.0.1:9", "w")  # past every promise: the status read fails
    assert failure is not None and failure.kind == "crash"


def test_the_learners_module_is_loaded_afresh_and_must_define_reserve() -> None:
    assert load_reserve("def reserve(http, workshop, seats):\n    return 1\n")(None, "w", 1) == 1
    assert load_reserve("def reserve(http, workshop, seats):\n    return 2\n")(None, "w", 1) == 2
    with pytest.raises(AttributeError):
        load_reserve("def book(http, workshop, seats):\n    return 3\n")



def test_a_call_the_network_never_lets_through_may_raise_but_not_make_a_decision_up() -> None:
    refused = [attempt(n, "r-a", "refuse", arrived=n, ended=n + 0.001) for n in range(1, 4)]
    raised = judge([outcome(1, refused, error="TimeoutError: r-a")], [], "http://127.0.0.1:9", "w", endless={1})
    assert raised is not None and raised.kind == "crash"  # past every promise: only the status read fails here
    made_up = judge([outcome(1, refused, returned={"requestId": "r-a", "status": "rejected", "reserved": None})],
                    [], "http://127.0.0.1:9", "w", endless={1})
    assert made_up is not None and made_up.message.key == "exercises.class_invented_decision"


def test_a_retry_sent_while_a_slow_worker_still_decided_the_first_attempt_is_no_retry_at_once() -> None:
    """The client gave up on its own timeout and waited; the proxy ended the first attempt only when the Worker
    answered, after the retry had arrived: no backoff can be measured there (a correct client was failed so)."""
    slow = outcome(1, [attempt(1, "r-a", "refuse", arrived=1.0, ended=1.5),
                       attempt(2, "r-a", "", [(201, ACCEPTED)], arrived=1.3, ended=1.4)], returned=ACCEPTED)
    failure = judge([slow], [], "http://127.0.0.1:9", "w")
    assert failure is not None and failure.kind == "crash"
