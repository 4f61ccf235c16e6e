"""What Cloudflare keeps of a learner: the user (e-mail, whether it is verified, what the login was granted, tokens)
and their accounts (name, workers.dev subdomain, Worker scripts, Durable Object namespaces).

Also the faults a scenario can switch on (a slow route, a 5xx after the commit, a 429, settings without
namespace_id). `scenarios` builds the users the rehearsal and the tests play.
"""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def hex_id() -> str:
    return secrets.token_hex(16)


@dataclass
class Namespace:
    """A Durable Object namespace (fields of GET /workers/durable_objects/namespaces)."""

    id: str
    name: str
    script: str
    class_name: str
    use_sqlite: bool = True

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "script": self.script, "class": self.class_name,
                "use_sqlite": self.use_sqlite}


@dataclass
class Script:
    """An uploaded Worker: its modules, metadata, versions and whether workers.dev serves it."""

    name: str
    tag: str
    modules: dict[str, bytes]
    metadata: dict[str, Any]
    created_on: str
    modified_on: str
    versions: list[str] = field(default_factory=list)
    workers_dev: bool = False
    live_from: float = 0.0  # monotonic time from which its workers.dev route answers

    @property
    def main_module(self) -> str:
        return str(self.metadata.get("main_module") or next(iter(self.modules), "index.js"))

    @property
    def bindings(self) -> list[dict[str, Any]]:
        return [b for b in self.metadata.get("bindings") or [] if isinstance(b, dict)]


@dataclass
class Faults:
    """What can go wrong, switched on by a scenario (each a count of times, or seconds)."""

    route_delay: float = 0.0          # workers.dev answers 404 for this long after a deploy (DNS, propagation)
    error_after_commit: int = 0       # the next N /reserve answers are a 502 HTML page although the request ran
    status_errors: int = 0            # the next N status reads answer a 502 HTML page (an edge hiccup)
    rate_limited: int = 0             # the next N API requests answer 429 with Retry-After
    retry_after: int = 1
    settings_without_namespace_id: bool = False  # GET …/settings bindings omit namespace_id (optional in the schema)


@dataclass
class Account:
    """One Cloudflare account: its name, workers.dev subdomain, Worker scripts and Durable Object namespaces."""

    name: str
    id: str = field(default_factory=hex_id)
    subdomain: str | None = "lab-learner"
    scripts: dict[str, Script] = field(default_factory=dict)
    namespaces: list[Namespace] = field(default_factory=list)

    def namespace_of(self, script: str, class_name: str) -> Namespace | None:
        return next((n for n in self.namespaces if n.script == script and n.class_name == class_name), None)

    def create_namespace(self, script: str, class_name: str, sqlite: bool) -> Namespace:
        made = Namespace(id=hex_id(), name=f"{script}_{class_name}", script=script, class_name=class_name,
                         use_sqlite=sqlite)
        self.namespaces.append(made)
        return made

    def new_version(self, script: Script) -> str:
        version = str(uuid.uuid4())
        script.versions.append(version)
        return version


@dataclass
class User:
    """The learner as Cloudflare knows them: e-mail, accounts, what a login was granted, tokens, faults.

    `accounts[0]` is the account the lab deploys to. `granted` lists the account IDs the login's consent screen
    covered (None: all; since 2026-04-14 the learner picks accounts there: cloudflare-docs #29821); requests for any
    other account are refused like a foreign account's. Every method is called under `lock`.
    """

    email: str = "learner@example.invalid"
    accounts: list[Account] = field(default_factory=list)
    email_verified: bool = True
    granted: set[str] | None = None
    user_id: str = field(default_factory=hex_id)
    tokens: dict[str, float | None] = field(default_factory=dict)  # token -> monotonic expiry (None: never)
    revoked: set[str] = field(default_factory=set)
    faults: Faults = field(default_factory=Faults)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        if not self.accounts:  # a fresh free account: Cloudflare names it after the sign-up e-mail
            self.accounts.append(Account(name=f"{self.email}'s Account"))

    @property
    def account(self) -> Account:
        """The account the lab uses."""
        return self.accounts[0]

    def visible(self) -> list[Account]:
        """The accounts a token of this login may use."""
        return [a for a in self.accounts if self.granted is None or a.id in self.granted]

    def account_by_id(self, account_id: str) -> Account | None:
        return next((a for a in self.visible() if a.id == account_id), None)

    def new_token(self, lifetime: float | None = None) -> str:
        token = "double-" + secrets.token_urlsafe(24)
        self.tokens[token] = None if lifetime is None else time.monotonic() + lifetime
        return token

    def authorized(self, token: str | None) -> bool:
        if not token or token not in self.tokens or token in self.revoked:
            return False
        expiry = self.tokens[token]
        return expiry is None or time.monotonic() < expiry
