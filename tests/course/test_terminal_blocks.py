"""The "in a terminal" blocks: one source (notebooks/source/terminal/*.sh) for every language, and each runs.

The local blocks run with bash against a real `wrangler dev` (port 8787 replaced by a free one); the cloud blocks
(steps 1, 5, 6, 7) run with bash, the pinned wrangler and the verifier against the Cloudflare double, curl reaching
the Worker's https://….workers.dev URL through the double's TLS listener (--connect-to, its CA).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from reservation_lab.authoring.builder import SOURCE_DIR, TERMINAL, languages, terminal_block
from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.cloudflare_double.scenarios import SCENARIOS
from reservation_lab.domain.config import write_cleanup_config, write_wrangler_config
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.jupyter.jupyterlab import terminal_env
from reservation_lab.runtime.ports import free_port
from reservation_lab.runtime.processes import group_members, stop_process_group
from reservation_lab.runtime.waiting import wait_until

BLOCKS = sorted(path.stem for path in (SOURCE_DIR / "terminal").glob("*.sh"))


def bash(folder: Path, script: str, env: dict[str, str], timeout: float = 240,
         pasted: bool = False) -> subprocess.CompletedProcess[str]:
    """`script` run by bash in `folder`: with -e and pipefail, or (`pasted`) as a learner's interactive shell runs a
    block pasted into it, going on after a failed line."""
    strict = [] if pasted else ["-e", "-o", "pipefail"]
    return subprocess.run(["bash", "--noprofile", "--norc", *strict, "-c", script], cwd=folder,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)


def test_every_language_shows_every_block_and_writes_none_of_its_own() -> None:
    for prose in languages():
        text = "\n".join(prose.cells.values())
        assert sorted(set(TERMINAL.findall(text))) == BLOCKS, prose.language
        assert "```bash" not in text, f"{prose.language}: a shell block belongs in notebooks/source/terminal/"


@pytest.fixture
def local_server(tmp_path: Path) -> Iterator[tuple[RunFolder, int]]:
    """step3-server.sh pasted into bash in a run folder, on a free port instead of 8787."""
    run = create_run_folder(tmp_path / "labex-c10-o03-0123456789ab")
    write_wrangler_config(run)
    port = free_port()
    procs: list[subprocess.Popen] = []

    def start() -> None:
        procs.append(subprocess.Popen(
            ["bash", "--noprofile", "--norc", "-c", terminal_block("step3-server").replace("8787", str(port))],
            cwd=run.root, env=terminal_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True))

        def healthy() -> bool:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/health", trust_env=False, timeout=2).status_code == 200
            except httpx.HTTPError:
                return procs[-1].poll() is not None
        assert wait_until(healthy, 90, interval=0.2) and procs[-1].poll() is None

    def stop() -> None:
        stop_process_group(procs[-1].pid, procs[-1])
        assert group_members(procs[-1].pid) == []

    start()
    yield run, port, start, stop  # type: ignore[misc]
    stop()


def test_local_blocks_checks_burst_restart_and_replay(local_server) -> None:
    run, port, start, stop = local_server
    checks = bash(run.root, terminal_block("step2-checks"), terminal_env())
    assert checks.returncode == 0, checks.stdout[-2000:] + checks.stderr[-2000:]
    assert "# fail 0" in checks.stdout and "--dry-run: exiting now." in checks.stdout + checks.stderr
    burst = bash(run.root, terminal_block("step3-burst").replace("8787", str(port)), terminal_env())
    assert burst.returncode == 0, burst.stderr
    assert burst.stdout.startswith('{"status":"ok"}\n')  # the seed's readiness wait, before the burst
    summary = json.loads(re.search(r'\{\s*"accepted".*?\}', burst.stdout, re.S).group(0))
    assert summary == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    stop()
    start()  # step4-server.sh is the same command on the same persistence folder
    assert terminal_block("step4-server") == terminal_block("step3-server")
    check = bash(run.root, terminal_block("step4-check").replace("8787", str(port)), terminal_env())
    assert check.returncode == 0, check.stderr
    ready, _, rest = check.stdout.partition("\n")
    assert ready == '{"status":"ok"}'
    answers = [json.loads(m) for m in re.findall(r"^\{.*?^\}", rest, re.S | re.M)]
    assert answers[0]["reserved"] == 4 and answers[1]["replayed"] is True
    assert answers[2]["status"] == "rejected" and answers[3]["rejectedRequests"] == 7
    # the terminal's own persistence folder: the notebook's state (the cells' local-state) is not touched
    folder = re.search(r"--persist-to (\S+)", terminal_block("step3-server")).group(1)
    assert folder == "terminal-state" and (run.root / folder).is_dir() and run.root / folder != run.state_dir
    assert not run.state_dir.exists() or not any(run.state_dir.iterdir())


@pytest.fixture
def terminal_in_double(tmp_path: Path, offline_home: None, request: pytest.FixtureRequest
                       ) -> Iterator[tuple[CloudflareDouble, dict[str, str]]]:
    """A terminal whose wrangler talks to the double (device login) and whose curl reaches its workers.dev; the
    learner is a fresh free account unless a test names another scenario (indirect parametrization)."""
    with CloudflareDouble(tmp_path / "double", SCENARIOS[getattr(request, "param", "fresh")]()) as double:
        shims = tmp_path / "shims"
        shims.mkdir()
        curl = shims / "curl"
        real = subprocess.run(["bash", "-c", "command -v curl"], capture_output=True, text=True).stdout.strip()
        curl.write_text(f'#!/bin/sh\nexec {real} {" ".join(double.curl_options())} "$@"\n')
        curl.chmod(curl.stat().st_mode | stat.S_IXUSR)
        env = terminal_env({**os.environ, **double.environment(with_token=False)})
        env.pop("CLOUDFLARE_API_TOKEN", None)
        env["PATH"] = f"{shims}{os.pathsep}{env['PATH']}"
        env["npm_config_registry"] = f"http://127.0.0.1:{free_port()}/"  # wrangler's update check stays local
        yield double, env
        assert double.bundles.held.running() == {}


def test_cloud_blocks_login_deploy_burst_verify_redeploy_delete_logout(terminal_in_double, tmp_path: Path) -> None:
    double, env = terminal_in_double
    run = create_run_folder(tmp_path / "labex-c10-o03-0123456789ab")
    write_wrangler_config(run)  # the notebook's config cell, without an account ID (the terminal adds it)
    write_cleanup_config(run)
    outputs = {}
    for block in ("step1-login", "step5", "step6", "step7"):
        done = bash(run.root, terminal_block(block), env)
        logged_out = block == "step7" and done.stdout.rstrip().endswith('{"loggedIn":false}')
        # the last line of step 7 (whoami when logged out) prints {"loggedIn":false} and exits 1, by design
        assert done.returncode == (1 if logged_out else 0), f"{block}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        outputs[block] = done.stdout
    assert '"name": "<e-mail>\'s Account"' in outputs["step1-login"]  # a fresh account: the only one is taken
    assert double.account.id not in outputs["step1-login"] and double.user.email not in outputs["step1-login"]
    assert json.loads(run.config.read_text())["account_id"] == double.account.id
    summary = json.loads(re.search(r'\{\s*"accepted".*?\}', outputs["step5"], re.S).group(0))
    assert summary == {"accepted": 4, "rejected": 6, "highestReserved": 4}
    assert "PASS: deployed" in outputs["step5"] and "PASS: deployed" in outputs["step6"]
    assert '"reserved": 4' in outputs["step6"]
    assert "PASS: deleted" in outputs["step7"] and f"Successfully deleted {run.name}" in outputs["step7"]
    assert double.account.scripts == {} and double.account.namespaces == []


@pytest.mark.parametrize("terminal_in_double", ["several-accounts"], indirect=True)
def test_the_login_block_takes_the_learning_account_among_several(terminal_in_double, tmp_path: Path) -> None:
    double, env = terminal_in_double
    run = create_run_folder(tmp_path / "labex-c10-o03-0123456789ab")
    write_wrangler_config(run)
    done = bash(run.root, terminal_block("step1-login"), env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert '"name": "LabEx Learning"' in done.stdout and '"name": "<e-mail>\'s Account"' in done.stdout
    assert double.user.email not in done.stdout and double.account.id not in done.stdout
    assert json.loads(run.config.read_text())["account_id"] == double.account.id
    assert "--scopes account:read user:read workers:write workers_scripts:write" in terminal_block("step1-login")


def _recording_npx(folder: Path) -> tuple[dict[str, str], Path]:
    """A terminal whose `npx` records its arguments, answers `wrangler whoami --json` with one account and fails
    `wrangler delete`."""
    shims, calls = folder / "shims", folder / "npx-calls"
    shims.mkdir()
    npx = shims / "npx"
    npx.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n'
                   'case "$*" in "wrangler whoami --json") echo \'{"loggedIn":true,"accounts":'
                   '[{"name":"Learning","id":"0123456789abcdef0123456789abcdef"}]}\' ;;\n'
                   '  "wrangler delete"*) exit 1 ;; esac\n')  # the block stops there: no verifier, no network
    npx.chmod(npx.stat().st_mode | stat.S_IXUSR)
    env = terminal_env()
    env["PATH"] = f"{shims}{os.pathsep}{env['PATH']}"
    return env, calls


@pytest.mark.parametrize("folder", ["labex-c10-o03-0123456789ab", "labex-c10-o03-notarun", "Downloads"])
def test_pasted_into_a_shell_the_login_and_delete_blocks_stop_outside_a_run_folder(tmp_path: Path,
                                                                                   folder: str) -> None:
    """Pasted into an interactive shell (no `-e`): in a folder that is not a run folder, step 1 writes no account
    ID and step 7 neither deploys nor deletes; nor does step 7 before step 1 has written the account ID; in a run
    folder after step 1 both go on (the cloud test runs them for real)."""
    run = create_run_folder(tmp_path / folder) if folder.startswith("labex") else None
    root = run.root if run else tmp_path / folder
    root.mkdir(exist_ok=True)
    if run:
        write_wrangler_config(run)
        write_cleanup_config(run)
    else:
        (root / "wrangler.jsonc").write_text('{"name": "mine"}\n')
        (root / "wrangler.cleanup.jsonc").write_text('{"name": "mine"}\n')
    env, calls = _recording_npx(tmp_path)
    for block in ("step7", "step1-login", "step7"):  # step 7 before step 1: no account ID yet, nothing deployed
        bash(root, terminal_block(block), env, timeout=60, pasted=True)
    config = json.loads(re.sub(r"^\s*//.*$", "", (root / "wrangler.jsonc").read_text(), flags=re.M))
    commands = calls.read_text().splitlines()
    is_run = folder == "labex-c10-o03-0123456789ab"
    assert ("account_id" in config) is is_run
    login = commands.index("wrangler --version")  # step 1's first line: what step 7 did before it
    assert [c for c in commands[:login] if not c.startswith("wrangler whoami")] == []
    assert any(c.startswith("wrangler deploy") for c in commands[login:]) is is_run
    assert any(c.startswith("wrangler delete") for c in commands[login:]) is is_run
    assert commands[-1] == "wrangler whoami --json"  # the last line runs in any case: still logged in


def test_pasted_into_a_shell_the_cloud_burst_block_stops_without_a_workers_dev_url(tmp_path: Path) -> None:
    """A deploy that printed no workers.dev URL (no subdomain yet, a failed upload): the step-5 block stops there,
    pasted into an interactive shell too: no burst, no verifier, the previous burst's files untouched."""
    run = create_run_folder(tmp_path / "labex-c10-o03-0123456789ab")
    write_wrangler_config(run)
    earlier = run.root / "cloud-response-1.json"
    earlier.write_text('{"status": "accepted"}\n')
    env, calls = _recording_npx(tmp_path)
    for block in ("step5", "step6"):
        done = bash(run.root, terminal_block(block), env, timeout=60, pasted=True)
        assert done.returncode != 0 and "verify" not in done.stdout + done.stderr, block
    assert calls.read_text().splitlines() == ["wrangler deploy", "wrangler deploy"]
    assert earlier.exists() and not (run.root / "cloud-response-2.json").exists()
