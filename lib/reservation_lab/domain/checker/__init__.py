"""A serial-order checker: does SOME one-at-a-time order of the requests explain every answer of a burst?

This is the idea behind Jepsen's linearizability checkers, specialised to the workshop counter, where
it needs no search at all. Every accepted reservation moves the counter up by its seats, so in any
serial order the accepted answers' `reserved` values strictly increase: sorting them by `reserved`
*is* the only possible order of the accepted requests. The checker then verifies, in O(n log n):

* the chain: sorted by `reserved`, each accepted request moves the counter from `reserved - seats`
  to `reserved`, starting at the `reserved` of the state before; a repeated value is a lost update,
  a hole is a gap, an overlap is a lost update too, and a value above capacity is overbooking;
* the rejections: each one saw a state that existed (the start or an accepted result) and that state
  really had no room (`reserved + seats > capacity`);
* the replays (`replayed: true`): they repeat the first decision of their requestId (status,
  `reserved` and seats). Where that first decision is:
    - in the history: the replay must equal it;
    - in `prior` (answers from before the burst, optional): the replay must equal that, and the request
      is not part of this burst's chain;
    - nowhere: the original answer was lost (a retry after a transport error gets the replay, which is
      what `send_burst` does), so the first replay counts as this burst's decision of that request;
* a requestId decided twice without a replay is a contradiction;
* undecided responses (no status: transport errors, 5xx; a requestId with no decision anywhere in the
  history) are "unknown" and may or may not have taken effect, like Jepsen's indeterminate operations.
  They serve as optional links: a hole in the chain (or the climb to the highest rejection state, or
  to the durable `reserved` after the burst) may be filled by undecided requests whose seats add up
  to exactly that hole, passing through every rejection state inside it. Up to 32 undecided requests
  the filling is exact (a small dynamic program over how many requests of each seat count are used,
  which also matches the durable request counts when `after` is given); beyond that it is greedy (one
  request of exactly the hole's size, else the largest first), which is exact when they all have one
  seat. Undecided requests that are not needed did not change the counter: they never arrived or were
  rejected (the durable `rejectedRequests` says how many; they are placed at the end of the order);
* the durable status after the burst (optional): `reserved` equals the end of the chain,
  `acceptedSeats == reserved`, and `acceptedRequests` / `rejectedRequests` grew by the number of new
  accepted / rejected decisions (undecided requests used as links count as accepted; undecided ones
  that would not have fit at the end may count as rejected).

`check_history` returns a `CheckResult`; `explain` turns it into a few sentences in the notebook's language
(German, Brazilian Portuguese, Spanish or English; the words are in the `checker` section of `i18n`'s
catalogs). Each problem is kept as a `Message` (a template key and its values) in `problem_messages`;
`problems` holds them rendered in English,
`describe(message, language)` in any language.

The modules: `verdict` (the result and its problems), `history` (responses into decisions), `chain` (the accepted
answers along the counter, the rejections on it, the serial order), `fill` (undecided requests in the holes),
`status` (the status dicts before and after), `check` (the phases in order), `explanation` (`explain`), and
`search` (`check_with_cancels`: histories with cancellations, where the counter also moves down, so the order is
searched for, Wing & Gong's way, instead of read off the counter).
"""

from reservation_lab.domain.checker.check import check_history
from reservation_lab.domain.checker.explanation import explain
from reservation_lab.domain.checker.fill import PLAN_STATES, PLAN_UNKNOWNS
from reservation_lab.domain.checker.history import DECIDED, HTTP_FOR
from reservation_lab.domain.checker.search import check_with_cancels
from reservation_lab.domain.checker.status import STATUS_FIELDS
from reservation_lab.domain.checker.verdict import CheckResult, Step
from reservation_lab.i18n import Message, describe, plural

__all__ = ["DECIDED", "HTTP_FOR", "PLAN_STATES", "PLAN_UNKNOWNS", "STATUS_FIELDS", "CheckResult", "Message", "Step",
           "check_history", "check_with_cancels", "describe", "explain", "plural"]
