"""Drills: failure experiments against a real `wrangler dev` that check the lab invariants still hold.

`crash`, `load` and `bad_input` are the drills (each with `add_arguments` for the CLI); `common` holds what they
share (option types and flags, the drill's folder and dev server, the sync wrapper, report helpers).
"""

from reservation_lab.drills.common import bounded_int

__all__ = ["bounded_int"]
