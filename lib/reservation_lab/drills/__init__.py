"""The drills layer: failure experiments against a real `wrangler dev` that check the lab invariants still hold.

`crash` (SIGKILL mid-burst, restart, replay), `load` (many distinct requests at rising concurrency) and `bad_input`
(malformed requests against `worker/openapi.yaml`, a package) are the drills, each with `add_arguments` for the
CLI; `common` holds what they share (option types and flags, the drill's folder and dev server, the sync wrapper,
report helpers). May import `domain`, `runtime`, `i18n`, `errors` and `paths`; not `race`, `cloud` nor anything
above (`course`, `cli`).
"""

from reservation_lab.drills.common import bounded_int

__all__ = ["bounded_int"]
