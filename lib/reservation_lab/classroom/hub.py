"""A real JupyterHub on loopback for the class drill, or an existing hub reached with an admin token.

`LocalHub` starts `jupyterhub` 6.1 (the hub extra's pin) with the authenticator and spawner JupyterHub made for test
hubs: DummyAuthenticator (any name logs in) and SimpleLocalProcessSpawner (each learner's server is its own process
with its own home folder, `<root>/home/<name>`), behind the pinned configurable-http-proxy (deploy/proxy/, npm's
lock), every port a free loopback port. The drill reaches it as a service with an admin token made for this run (a
file of the run, never printed). `HubAPI` is the hub's REST API as the drill uses it: users, servers, tokens.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import httpx

from reservation_lab.errors import LabError
from reservation_lab.paths import REPO_ROOT
from reservation_lab.runtime.ports import free_port
from reservation_lab.runtime.processes import kill_process_group
from reservation_lab.runtime.toolchain import find_toolchain
from reservation_lab.runtime.waiting import wait_until

PROXY_DIR = REPO_ROOT / "deploy" / "proxy"  # configurable-http-proxy 5.3.0, npm's lock
PROXY_BIN = PROXY_DIR / "node_modules" / "configurable-http-proxy" / "bin" / "configurable-http-proxy"
START_SCRIPT = REPO_ROOT / "deploy" / "singleuser" / "start.sh"  # how the deployments start a learner
SERVICE = "class-drill"
SCOPES = ["admin:users", "admin:servers", "admin:server_state", "tokens", "access:servers", "list:users",
          "read:users", "read:servers"]
HUB_TOKEN_ENV = "RESERVATION_LAB_HUB_TOKEN"  # an existing hub's admin API token (`--hub URL`)
START_TIMEOUT = 60.0


def hub_config(root: Path, port: int, hub_port: int, proxy_port: int, token: str) -> str:
    """jupyterhub_config.py of a test hub under `root` (JupyterHub's docs: "Testing JupyterHub" and the
    SimpleLocalProcessSpawner/DummyAuthenticator docstrings)."""
    venv_bin = Path(sys.executable).parent
    settings = {
        "ip": "127.0.0.1", "port": port, "hub_ip": "127.0.0.1", "hub_port": hub_port,
        "db_url": f"sqlite:///{root / 'jupyterhub.sqlite'}", "cookie_secret_file": str(root / "cookie_secret"),
        "pid_file": str(root / "jupyterhub.pid"), "proxy_port": proxy_port,
        "proxy": [str(find_toolchain().node), str(PROXY_BIN)],  # node itself: the pid the hub stops
        "proxy_pid": str(root / "proxy.pid"), "homes": str(root / "home" / "{username}"),
        # as the deployments start it (deploy/singleuser/start.sh): each learner's code and run folders in their home
        "singleuser": ["bash", str(START_SCRIPT), str(venv_bin / "jupyterhub-singleuser")],
        "path": f"{venv_bin}{os.pathsep}{os.environ['PATH']}",
        "token": token, "service": SERVICE, "scopes": SCOPES,
        "args": ["--allow-root"] if os.geteuid() == 0 else [],  # CI and containers run as root
    }
    return f"""# written by reservation_lab.classroom.hub for one class drill; removed with its folder
import json
s = json.loads({json.dumps(json.dumps(settings))})
c.JupyterHub.ip = s["ip"]
c.JupyterHub.port = s["port"]
c.JupyterHub.hub_ip = s["hub_ip"]
c.JupyterHub.hub_port = s["hub_port"]
c.JupyterHub.db_url = s["db_url"]
c.JupyterHub.cookie_secret_file = s["cookie_secret_file"]
c.JupyterHub.pid_file = s["pid_file"]
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.last_activity_interval = 3600
c.ConfigurableHTTPProxy.command = s["proxy"]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % s["proxy_port"]
c.ConfigurableHTTPProxy.pid_file = s["proxy_pid"]
c.ConfigurableHTTPProxy.should_start = True
c.SimpleLocalProcessSpawner.home_dir_template = s["homes"]
c.Spawner.cmd = s["singleuser"]
c.Spawner.args = s["args"]
c.Spawner.ip = "127.0.0.1"
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.environment = {{"PATH": s["path"], "JUPYTERHUB_SINGLEUSER_EXTENSION": "1"}}
c.JupyterHub.services = [{{"name": s["service"], "api_token": s["token"]}}]
c.JupyterHub.load_roles = [{{"name": "class-drill", "scopes": s["scopes"], "services": [s["service"]]}}]
"""


@dataclass
class HubAPI:
    """The hub's REST API (`/hub/api`) as the drill's admin service uses it; the token is never shown."""

    url: str
    token: str

    def client(self, timeout: float = 60) -> httpx.Client:
        return httpx.Client(base_url=self.url.rstrip("/"), headers={"Authorization": f"token {self.token}"},
                            timeout=timeout, trust_env=False)

    def __repr__(self) -> str:
        return f"HubAPI({self.url!r}, <hidden token>)"

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        with self.client() as http:
            answer = http.request(method, "/hub/api" + path, **kwargs)
        if answer.status_code >= 400:
            raise LabError("classroom.hub_refused", method=method, path=path, code=answer.status_code,
                           detail=answer.text[:200])
        return answer.json() if answer.content else None

    def user(self, name: str) -> dict[str, Any]:
        return self.call("GET", f"/users/{name}")

    def create_user(self, name: str) -> None:
        with self.client() as http:
            answer = http.post(f"/hub/api/users/{name}")
        if answer.status_code not in (201, 409):  # 409: the user exists (a drill run again against the same hub)
            raise LabError("classroom.hub_refused", method="POST", path=f"/users/{name}", code=answer.status_code,
                           detail=answer.text[:200])

    def start_server(self, name: str, timeout: float = 180) -> dict[str, Any]:
        """Start the learner's server and wait until the hub says it is ready; the user model with its state."""
        with self.client() as http:
            http.post(f"/hub/api/users/{name}/server")
        ready: dict[str, Any] = {}

        def is_ready() -> bool:
            model = self.user(name)
            server = (model.get("servers") or {}).get("", {})
            ready.update(server)
            return bool(server.get("ready"))

        if not wait_until(is_ready, timeout, interval=0.5):
            raise LabError("classroom.server_not_ready", name=name, seconds=round(timeout))
        return ready

    def stop_server(self, name: str, timeout: float = 60) -> None:
        with self.client() as http:
            http.delete(f"/hub/api/users/{name}/server")
        wait_until(lambda: not (self.user(name).get("servers") or {}), timeout, interval=0.5)

    def user_token(self, name: str) -> str:
        """A token of the learner's own (what their browser's login gives them), for their server's API."""
        made = self.call("POST", f"/users/{name}/tokens", json={"note": "class drill", "expires_in": 3600})
        return str(made["token"])

    def server_pid(self, name: str) -> int | None:
        """The pid of the learner's server (the spawner's state, which the admin:server_state scope shows)."""
        state = ((self.user(name).get("servers") or {}).get("") or {}).get("state") or {}
        pid = state.get("pid")
        return int(pid) if pid else None


SECRETS = ("jupyterhub_config.py", "cookie_secret", "jupyterhub.sqlite", "jupyterhub.pid", "proxy.pid")


def forget_secrets(root: Path) -> None:
    """What a stopped test hub leaves must hold no token: its config (the drill's service token), cookie secret and
    database (the learners' tokens), and each learner's Jupyter runtime files (their server's token; a server the
    hub stopped hard leaves its jpserver-*.json behind). The log, the report and the learners' runs stay."""
    for name in SECRETS:
        (root / name).unlink(missing_ok=True)
    for runtime in (root / "home").glob("*/.local/share/jupyter/runtime"):
        shutil.rmtree(runtime, ignore_errors=True)


class LocalHub:
    """A JupyterHub on loopback in `root` (its database, homes and config), stopped by close() with every server."""

    def __init__(self, root: Path) -> None:
        if not PROXY_BIN.exists():
            raise LabError("classroom.no_proxy", folder=str(PROXY_DIR))
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        token = secrets.token_hex(32)
        (self.root / "jupyterhub_config.py").write_text(
            hub_config(self.root, self.port, free_port(), free_port(), token))
        self.api = HubAPI(f"http://127.0.0.1:{self.port}", token)
        self.log = open(self.root / "jupyterhub.log", "w")  # noqa: SIM115 - closed by close()
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(self.root / "jupyterhub_config.py")],
            cwd=self.root, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                                             f"{os.environ['PATH']}"})
        if not wait_until(self._up, START_TIMEOUT, interval=0.25):
            self.close()
            raise LabError("classroom.hub_not_ready", seconds=round(START_TIMEOUT),
                           log=str(self.root / "jupyterhub.log"))

    def _up(self) -> bool:
        if self.process.poll() is not None:
            raise LabError("classroom.hub_exited", code=self.process.returncode,
                           log=str(self.root / "jupyterhub.log"))
        try:
            with httpx.Client(trust_env=False, timeout=2) as http:
                return http.get(f"{self.api.url}/hub/api/").status_code == 200
        except httpx.TransportError:
            return False

    def close(self) -> None:
        """Stop the hub (it stops every learner's server and the proxy), then end its process group."""
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=30)
        kill_process_group(self.process)  # the proxy and servers are stopped by the hub; the drill checks
        self.log.close()
        forget_secrets(self.root)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def existing_hub(url: str) -> HubAPI:
    """An existing hub at `url`, its admin token from RESERVATION_LAB_HUB_TOKEN (never printed)."""
    token = os.environ.get(HUB_TOKEN_ENV)
    if not token:
        raise LabError("classroom.no_hub_token", variable=HUB_TOKEN_ENV)
    return HubAPI(url, token)
