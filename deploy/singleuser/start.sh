#!/usr/bin/env bash
# Starts a learner's Jupyter server on a class hub, with the course imported from the learner's own copy of its code:
#
#   bash /path/to/shared/checkout/deploy/singleuser/start.sh jupyterhub-singleuser [ARGS...]
#
# (z2jh: singleuser.cmd in deploy/z2jh/config.yaml, shared checkout /srv/reservation-lab in the image; TLJH:
# c.Spawner.cmd, written by deploy/tljh/install.sh, shared checkout /opt/reservation-lab.)
#
# Why: reservation_lab.paths puts the run folders (.runs/) beside the package it is imported from. Imported from the
# shared checkout, every learner of a TLJH server would write into one root-owned .runs/ (and see each other's runs),
# and on z2jh the runs would sit outside the learner's volume and vanish when the server is culled. So on every start
# the learner's ~/.reservation-lab gets the shared checkout's code again (always the code the shared environment and
# the pinned wrangler were installed for; its .runs/ is kept), worker/node_modules there is a link to the shared one
# (read only, never written to by a run), and PYTHONPATH puts ~/.reservation-lab/lib before the shared editable
# install. If the copy cannot be made, the server still starts on the shared checkout and says so on stderr.
set -uo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: bash ${BASH_SOURCE[0]} jupyterhub-singleuser [ARGS...]" >&2
  exit 2
fi
shared="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
own="${HOME:?HOME is not set}/.reservation-lab"

refresh() {
  mkdir -p "$own" &&
    find "$own" -mindepth 1 -maxdepth 1 ! -name .runs -exec rm -rf {} + &&
    tar -C "$shared" --exclude=./.git --exclude=./.venv --exclude=./.runs --exclude=./workspace --exclude=./build \
      --exclude=./worker/node_modules --exclude=./deploy/proxy/node_modules --exclude='*/__pycache__' \
      --exclude='*/.*_cache' --exclude=./.hypothesis --exclude=./.artifacts -cf - . |
    tar -C "$own" -xf - &&
    ln -s "$shared/worker/node_modules" "$own/worker/node_modules"
}

if [ "$shared" = "$own" ]; then
  : # started from the learner's own copy: nothing to refresh
elif refresh; then
  export PYTHONPATH="$own/lib${PYTHONPATH:+:$PYTHONPATH}"
else
  echo "reservation-lab: could not refresh $own; the course runs from $shared" >&2
fi

# A learner's server does not load nbgrader's four server extensions: the environment has nbgrader for a teacher
# (./lab nbgrader), and loading them costs every learner's server ~33 MiB and ~0.9 CPU-s at each start (bench/
# RESULTS.md). A teacher's server, or a hub that hands out assignments with nbgrader's exchange, sets
# RESERVATION_LAB_NBGRADER=1 (z2jh: singleuser.extraEnv; TLJH: c.Spawner.environment) to keep them.
# Nor jupyter-lsp's (JupyterLab's language-server bridge: the course installs no language server, and at each start
# it asks npm for its global prefix, a node process per learner).
# Its kernels use socket files, not TCP ports (reservation_lab/jupyter/server_kernels.py): on a machine shared by a
# class, a port picked for one learner's kernel can be taken by another's before the kernel binds it.
if [ "$(basename "$1")" = jupyterhub-singleuser ]; then
  set -- "$@" "--ServerApp.jpserver_extensions=jupyter_lsp=False"
  set -- "$@" "--AsyncMappingKernelManager.kernel_manager_class=reservation_lab.jupyter.server_kernels.SocketFileServerKernelManager"
  if [ "${RESERVATION_LAB_NBGRADER:-}" != 1 ]; then
    for extension in formgrader assignment_list course_list validate_assignment; do
      set -- "$@" "--ServerApp.jpserver_extensions=nbgrader.server_extensions.$extension=False"
    done
  fi
fi
exec "$@"
