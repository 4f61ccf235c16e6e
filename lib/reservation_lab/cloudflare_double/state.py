"""One account as Cloudflare keeps it: user, subdomain, Worker scripts, Durable Object namespaces, tokens.

Also the faults a scenario can switch on (no subdomain, a slow route, a 5xx after the commit, a 429).
"""

from __future__ import annotations

import secrets
import threading
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


@dataclass
class Account:
    """The learner's account, as the double holds it; every method is called under `lock`."""

    name: str = "LabEx Learning"
    id: str = field(default_factory=hex_id)
    email: str = "learner@example.invalid"
    user_id: str = field(default_factory=hex_id)
    subdomain: str | None = "lab-learner"
    tokens: set[str] = field(default_factory=set)
    revoked: set[str] = field(default_factory=set)
    scripts: dict[str, Script] = field(default_factory=dict)
    namespaces: list[Namespace] = field(default_factory=list)
    faults: Faults = field(default_factory=Faults)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def new_token(self) -> str:
        token = "double-" + secrets.token_urlsafe(24)
        self.tokens.add(token)
        return token

    def authorized(self, token: str | None) -> bool:
        return bool(token) and token in self.tokens and token not in self.revoked

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
