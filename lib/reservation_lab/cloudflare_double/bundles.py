"""Each uploaded Worker on real workerd: its modules written to a folder and served by `wrangler dev`.

The Durable Object state lives in a folder per script, kept across redeploys and removed with the namespace, so a
redeploy replaces the running instance but not the SQLite data, as on Cloudflare. Requests for
`<script>.<subdomain>.workers.dev` are forwarded to that server. Only Workers with a Durable Object binding are
run (the lab's Worker); the stateless tombstone Worker of step 7 is stored but not served (nothing calls it).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from reservation_lab.cloudflare_double.state import Account, Namespace, Script, User
from reservation_lab.domain.runs import HeldServers

NOT_FOUND_PAGE = b"<!DOCTYPE html><title>Not found</title><p>There is nothing here yet.</p>"
BAD_GATEWAY_PAGE = b"<!DOCTYPE html><title>502 Bad gateway</title><p>Error code 502.</p>"
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "content-encoding"}


@dataclass(frozen=True)
class WorkerFolder:
    """The RunLayout of one uploaded Worker inside the double's folder."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "wrangler.json"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"


def local_config(script: Script, live_classes: set[str]) -> dict:
    """A wrangler config that runs the uploaded modules as uploaded: main module, date, DO bindings, exports."""
    meta = script.metadata
    bindings = [{"name": b["name"], "class_name": b["class_name"]} for b in script.bindings
                if b.get("type") == "durable_object_namespace" and b.get("class_name") in live_classes]
    return {"name": script.name, "main": "src/" + script.main_module,
            "compatibility_date": meta.get("compatibility_date"),
            "compatibility_flags": meta.get("compatibility_flags") or [],
            "durable_objects": {"bindings": bindings},
            "exports": {name: {"type": "durable-object", "storage": "sqlite"} for name in sorted(live_classes)}}


class Bundles:
    """The running Workers of one user's accounts, by script name (run names are unique across accounts)."""

    def __init__(self, root: Path, user: User) -> None:
        self.root = root
        self.user = user
        self.held = HeldServers()  # one wrangler dev per running Worker, by script name
        self._http = httpx.Client(trust_env=False, timeout=30)  # one connection pool for every forwarded request

    def folder(self, name: str) -> WorkerFolder:
        return WorkerFolder(self.root / name)

    def deploy(self, account: Account, script: Script) -> None:
        """Write the modules and (re)start the Worker on the same state folder."""
        self.held.stop(script.name)
        folder = self.folder(script.name)
        shutil.rmtree(folder.root / "src", ignore_errors=True)
        for module, content in script.modules.items():
            target = folder.root / "src" / module
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        live = {n.class_name for n in account.namespaces if n.script == script.name}
        folder.config.write_text(json.dumps(local_config(script, live), indent=2))
        if live:
            self.held.start(script.name, folder, log_name="workerd.log")  # QUIET: no step of the learner's

    def route_opened(self, script: Script) -> None:
        """workers.dev starts answering, after the scenario's route delay (DNS, propagation)."""
        script.live_from = time.monotonic() + self.user.faults.route_delay

    def drop_state(self, name: str, namespace: Namespace) -> None:
        """The namespace is deleted: its objects' SQLite files go with it."""
        self.held.stop(name)
        shutil.rmtree(self.folder(name).state_dir, ignore_errors=True)

    def remove(self, name: str) -> None:
        self.held.stop(name)
        shutil.rmtree(self.folder(name).root, ignore_errors=True)

    def stop_all(self) -> None:
        self.held.stop_all()  # stopped and proven gone
        self._http.close()

    def forward(self, host: str, method: str, path: str, headers: dict[str, str],
                body: bytes) -> tuple[int, dict[str, str], bytes]:
        """Answer a request for `host` from the Worker's own wrangler dev (404 page while no route exists)."""
        with self.user.lock:
            script = self._script_for(host)
            server = self.held.get(script.name) if script else None
            faults = self.user.faults
            fail = (server is not None and method == "POST" and path.endswith("/reservations")
                    and faults.error_after_commit > 0)
            if fail:
                faults.error_after_commit -= 1
            hiccup = server is not None and path.endswith("/status") and faults.status_errors > 0
            if hiccup:
                faults.status_errors -= 1
        if hiccup:
            return 502, {"content-type": "text/html"}, BAD_GATEWAY_PAGE
        if server is None:
            return 404, {"content-type": "text/html"}, NOT_FOUND_PAGE
        sent = {k: v for k, v in headers.items() if k.lower() not in HOP_HEADERS}
        answer = self._http.request(method, server.base_url + path, headers=sent, content=body)
        if fail:  # the Worker committed, but the answer is lost on the way back
            return 502, {"content-type": "text/html"}, BAD_GATEWAY_PAGE
        kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS}
        return answer.status_code, kept, answer.content

    def _script_for(self, host: str) -> Script | None:
        name, _, rest = host.partition(".")
        account = next((a for a in self.user.accounts if a.subdomain and rest == f"{a.subdomain}.workers.dev"), None)
        script = account.scripts.get(name) if account else None
        if script is None or not script.workers_dev:
            return None
        return script if time.monotonic() >= script.live_from else None
