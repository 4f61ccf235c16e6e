"""The concurrent-reservations lab's helper package, in layers (lowest first; imports point down only):

    errors, paths   what can go wrong (one sentence a learner can act on), where the repository's files are
    i18n            sentences in the learner's language
    runtime         toolchain, wrangler, dev server, ports, processes, waiting (knows nothing of reservations)
    domain          the lab: constants, run folders and configs, client, bursts, invariants, checker
    race, cloud     the race prelude (local only); steps 5-7 against Cloudflare
    drills          crash, load and bad-input drills
    course          the facade the notebook cells import (`from reservation_lab import course as lab`), builder
    cli             the one command line (`python -m reservation_lab`, `./lab`)

tests/test_layers.py enforces the order.
"""

from reservation_lab.errors import LabError

__all__ = ["LabError"]
