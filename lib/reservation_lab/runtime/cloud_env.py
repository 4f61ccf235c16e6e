"""Where commands that reach a Cloudflare account go: the learner's real environment, or a stand-in's.

A `CloudEnvironment` is what a cloud command sees of the environment: wrangler's `login`, `whoami`, `deploy`,
`delete`, `logout` and the helpers' API and workers.dev clients read their variables through it. The real one
passes the kernel's environment through; it is the default of every helper's `Context` (runtime.context), and a
session in rehearsal carries the stand-in's instead. A stand-in's (the rehearsal's Cloudflare double) is *built,
not inherited* for credentials: every credential, endpoint and keyring variable of the kernel (CLOUDFLARE_*, CF_*,
WRANGLER_* but wrangler's quiet switches) is left out and the stand-in's own are set, so a learner's API token,
Global API Key or OS-keyring login can neither reach the stand-in nor be changed by its `logout`. The kernel's own
`os.environ` is never written: local `wrangler dev` and everything else keep the learner's environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

CREDENTIAL_PREFIXES = ("CLOUDFLARE_", "CF_", "WRANGLER_")  # wrangler's credential, endpoint and keyring variables
KEPT = frozenset({"WRANGLER_SEND_METRICS", "WRANGLER_HIDE_BANNER", "WRANGLER_LOG", "WRANGLER_LOG_PATH",
                  "WRANGLER_WRITE_LOGS", "WRANGLER_OUTPUT_FILE_PATH", "CLOUDFLARE_CF_FETCH_ENABLED"})
NO_KEYRING = {"CLOUDFLARE_AUTH_USE_KEYRING": "false"}  # cli.js: the encrypted store's key lives in the OS keyring


def is_credential(name: str) -> bool:
    """A variable a stand-in must not inherit from the kernel (see the module docstring)."""
    return name.startswith(CREDENTIAL_PREFIXES) and name not in KEPT


@dataclass(frozen=True)
class CloudEnvironment:
    """The variables cloud commands see: `variables` over the kernel's; with `isolated`, no inherited credentials."""

    variables: Mapping[str, str] = field(default_factory=dict)
    isolated: bool = False

    def get(self, name: str) -> str | None:
        """One variable as a cloud command sees it (None: unset or empty)."""
        if name in self.variables:
            return self.variables[name] or None
        if self.isolated and is_credential(name):
            return None
        return os.environ.get(name) or None

    def apply(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` (built from the kernel's) as a cloud command of this environment gets it."""
        kept = {k: v for k, v in env.items() if not (self.isolated and is_credential(k))}
        return {**kept, **self.variables}


REAL = CloudEnvironment()  # the kernel's own environment, passed through


def stand_in(variables: Mapping[str, str]) -> CloudEnvironment:
    """An isolated environment: only the stand-in's `variables` and no keyring, nothing inherited for credentials."""
    return CloudEnvironment({**NO_KEYRING, **variables}, isolated=True)
