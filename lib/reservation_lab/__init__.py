"""The concurrent-reservations lab's helper package, in layers (lowest first; imports point down only):

    i18n                        sentences in the learner's language (the lowest layer: imports nothing of ours)
    errors, paths, lockfile     what can go wrong (one sentence a learner can act on), where the files are, the lock
    runtime                     toolchain, wrangler, dev servers, ports, processes (knows nothing of reservations)
    domain                      the lab: constants, run folders and configs, client, bursts, invariants, checker
    race, cloud, cloudflare_double, experiments, exercises
                                the race prelude; steps 5-7; the loopback stand-in for Cloudflare's API; the
                                experiments' workbench; the exercises' grader
    drills                      crash, load and bad-input drills
    course                      the facade the notebook cells import (`from reservation_lab import course as lab`)
    jupyter                     kernels and notebook plumbing: the named kernel, kernels on socket files, the
                                papermill engine, ./lab jupyter (which driver runs which notebook: its docstring)
    authoring                   for course authors: the notebook builder, translations, ./lab run
    teaching, website, classroom
                                for teachers: ./lab mark, ./lab nbgrader; the website (./lab site); the class
                                drill on a real JupyterHub (./lab class)
    cli, __main__               the one command line (`python -m reservation_lab`, `./lab`)

import-linter enforces the order (the `layers` contract in pyproject.toml, run by tests/test_layers.py).
"""

import sys

from reservation_lab.errors import LabError

WINDOWS_SENTENCE = (
    "Native Windows is not supported: open this folder in WSL (Windows Subsystem for Linux) and run ./lab there."
)
if sys.platform == "win32":  # process groups, signals and the watchdog need a POSIX system (Linux, macOS, WSL)
    raise ImportError(WINDOWS_SENTENCE)

__all__ = ["LabError"]
