"""The lab's domain constants, stated once: a workshop has CAPACITY seats (the Worker's own `CAPACITY` in
worker/src/validation.js, which the lab checks against), a durable status reports the STATUS_FIELDS totals
(besides the workshop name), and the seeds' burst is BURST_SIZE people asking for one seat each at once.
Everything else in the lab (invariants, checker, verifier, demos, drills) imports these values from here.
"""

from __future__ import annotations

CAPACITY = 4
STATUS_FIELDS = ("capacity", "reserved", "acceptedRequests", "rejectedRequests", "acceptedSeats")
BURST_SIZE = 10
