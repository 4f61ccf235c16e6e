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

import sys

from reservation_lab.errors import LabError

WINDOWS_SENTENCE = (
    "Native Windows is not supported: open this folder in WSL (Windows Subsystem for Linux) and run ./lab there."
)
if sys.platform == "win32":  # process groups, signals and the watchdog need a POSIX system (Linux, macOS, WSL)
    raise ImportError(WINDOWS_SENTENCE)

__all__ = ["LabError"]
