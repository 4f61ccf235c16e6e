"""run_wrangler against the real pinned wrangler: output, failures, its environment and the timeout path."""

from __future__ import annotations

import io
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from reservation_lab.domain.runs import RunFolder
from reservation_lab.errors import LabError, WranglerError
from reservation_lab.runtime.ports import LOOPBACK, free_port
from reservation_lab.runtime.processes import group_members, processes_mentioning
from reservation_lab.runtime.toolchain import find_toolchain, pinned_wrangler_version
from reservation_lab.runtime.wrangler import AGENT_VALUES, AGENT_VARIABLES, run_wrangler, wrangler_env
from tests.support import raises_key

PINNED = pinned_wrangler_version()


def live_processes_under(folder: Path) -> list[str]:
    """Live processes (other than this one) whose command line or working directory mentions folder."""
    others = [info for info in processes_mentioning(str(folder)) if info.pid != os.getpid()]
    return [f"{info.pid}: {info.cmdline[:160]}" for info in others]


def wait_until_empty(pgid: int, folder: Path, within: float = 5.0) -> tuple[list[int], list[str]]:
    """Poll until the group and the folder have no live process (SIGKILL is delivered asynchronously)."""
    deadline = time.monotonic() + within
    while True:
        members, under = group_members(pgid), live_processes_under(folder)
        if (not members and not under) or time.monotonic() > deadline:
            return members, under
        time.sleep(0.05)


def test_version_is_echoed_and_ok(tmp_path: Path) -> None:
    """`wrangler --version` prints the pinned version to the echo stream and succeeds; logs go to cwd/logs."""
    echo = io.StringIO()
    result = run_wrangler("--version", cwd=tmp_path, echo=echo, timeout=60)
    assert result.ok
    assert result.returncode == 0
    assert result.args == ("--version",)
    assert PINNED in echo.getvalue()
    assert result.output == echo.getvalue()
    assert (tmp_path / "logs").is_dir()


def test_echo_none_still_collects_output(tmp_path: Path) -> None:
    """Without an echo stream the output is still returned."""
    result = run_wrangler("--version", cwd=tmp_path, echo=None, timeout=60)
    assert result.ok
    assert result.output.strip().endswith(PINNED)


def test_failing_subcommand_raises_with_check(tmp_path: Path) -> None:
    """A failing wrangler command raises WranglerError naming the command, its exit code and its last lines."""
    with pytest.raises(WranglerError) as caught:
        run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run", cwd=tmp_path, echo=None, timeout=60)
    message = str(caught.value)
    assert "`wrangler deploy --config does-not-exist.jsonc --dry-run` failed with exit code 1" in message
    assert isinstance(caught.value, LabError)


def test_failure_message_says_what_went_wrong(tmp_path: Path) -> None:
    """The WranglerError message carries wrangler's [ERROR] line."""
    with pytest.raises(WranglerError) as caught:
        run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run", cwd=tmp_path, echo=None, timeout=60)
    assert "Could not read file: does-not-exist.jsonc" in str(caught.value)


def test_failing_subcommand_returns_nonzero_without_check(tmp_path: Path) -> None:
    """check=False returns the failure instead of raising."""
    echo = io.StringIO()
    result = run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run",
                          cwd=tmp_path, echo=echo, timeout=60, check=False)
    assert not result.ok
    assert result.returncode != 0
    assert "does-not-exist.jsonc" in result.output
    assert result.output == echo.getvalue()


def test_wrangler_env_is_quiet_and_logs_inside_the_folder(tmp_path: Path) -> None:
    """No metrics, no tracking, no CF fetch, no banner; the log path is the given folder (created)."""
    log_dir = tmp_path / "run" / "logs"
    env = wrangler_env(log_dir)
    assert env["WRANGLER_SEND_METRICS"] == "false"
    assert env["DO_NOT_TRACK"] == "1"
    assert env["CLOUDFLARE_CF_FETCH_ENABLED"] == "false"
    assert env["WRANGLER_HIDE_BANNER"] == "true"
    assert Path(env["WRANGLER_LOG_PATH"]).is_relative_to(tmp_path / "run")
    assert Path(env["WRANGLER_LOG_PATH"]) == log_dir
    assert log_dir.is_dir()


def test_wrangler_env_keeps_the_environment_and_applies_extras(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's environment is inherited; extras win; os.environ itself is untouched."""
    monkeypatch.setenv("LAB_TEST_MARKER", "kept")
    monkeypatch.setenv("WRANGLER_SEND_METRICS", "true")
    env = wrangler_env(tmp_path, {"EXTRA": "1", "NO_COLOR": "0"})
    assert env["LAB_TEST_MARKER"] == "kept"
    assert env["EXTRA"] == "1"
    assert env["NO_COLOR"] == "0"
    assert env["WRANGLER_SEND_METRICS"] == "false", "the learner's shell must not turn metrics back on"
    assert os.environ["WRANGLER_SEND_METRICS"] == "true"


def test_log_dir_argument_receives_the_wrangler_log(tmp_path: Path) -> None:
    """wrangler's debug log goes into the given log_dir, not into cwd/logs."""
    log_dir = tmp_path / "own-logs"
    run_wrangler("--version", cwd=tmp_path, log_dir=log_dir, echo=None, timeout=60)
    assert list(log_dir.glob("wrangler-*.log")), "wrangler wrote no log into log_dir"
    assert not (tmp_path / "logs").exists()


def test_timeout_raises_and_leaves_no_process(run_folder: RunFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    """`wrangler dev` outliving its timeout is stopped: WranglerError, and no process of its group or folder left."""
    started: list[subprocess.Popen] = []

    class RecordingPopen(subprocess.Popen):
        """The real Popen; it only remembers what it started so the test knows the process group."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            started.append(self)

    monkeypatch.setattr(subprocess, "Popen", RecordingPopen)
    port, inspector = free_port(), free_port()
    echo = io.StringIO()
    began = time.monotonic()
    with raises_key("errors.wrangler_timeout", WranglerError, seconds=4):
        run_wrangler(
            "dev", "--config", str(run_folder.config), "--ip", LOOPBACK, "--port", str(port),
            "--inspector-port", str(inspector), "--persist-to", str(run_folder.state_dir),
            "--show-interactive-dev-session=false",
            cwd=run_folder.root, echo=echo, timeout=4,
        )
    assert time.monotonic() - began < 30
    monkeypatch.undo()
    dev = [proc for proc in started if "dev" in proc.args]
    assert len(dev) == 1, f"expected one wrangler dev process, saw {[proc.args for proc in started]}"
    assert dev[0].returncode is not None, "the wrangler process was not reaped"
    members, under = wait_until_empty(dev[0].pid, run_folder.root)
    assert members == [], f"processes left in the wrangler group: {members}"
    assert under == [], f"processes left in the run folder: {under}"


def test_failure_output_is_plain_text(tmp_path: Path) -> None:
    """What run_wrangler returns and echoes is plain text, fit for a log file or an error message."""
    result = run_wrangler("deploy", "--config", "does-not-exist.jsonc", "--dry-run",
                          cwd=tmp_path, echo=None, timeout=60, check=False)
    assert "Could not read file" in result.output
    assert "\x1b[" not in result.output


# The pinned bundle's own agent detection, run by node: the am-i-vibing section of cli.js (from its `detector-…mjs`
# banner to the end of `src/utils/detect-agent.ts`) evaluated as it stands, with esbuild's lazy-init helper, no-ops for
# the module inits it calls from outside, and a getProcessAncestry that only counts calls. Reads a JSON list of
# environments on stdin; answers wrangler's providers, detectAgent() for each environment, and the section's lines.
DETECT_AGENT_JS = r"""
const fs = require("fs");
const file = process.argv.at(-1);
const text = fs.readFileSync(file, "utf8");
const start = text.search(/^\/\/ [^\n]*\/am-i-vibing\/dist\/detector-[^\n]*$/m);
const tail = text.indexOf("\n// src/utils/detect-agent.ts\n", start);
const init = text.indexOf("var init_detect_agent = __esm(", tail);
const end = text.indexOf("\n});\n", init) + 5;
if (start < 0 || tail < 0 || init < 0 || end < 5) throw new Error("no detectAgent in " + file);
const source = text.slice(start, end);
const defined = new Set([...source.matchAll(/\bvar (init_\w+) = __esm\(/g)].map((m) => m[1]));
const outside = [...new Set([...source.matchAll(/\b(init_\w+)\(\);/g)].map((m) => m[1]))]
  .filter((name) => !defined.has(name));
const __esm = (mod) => { let done = false; return () => { if (!done) { done = true; Object.values(mod)[0](); } }; };
let ancestryCalls = 0;
const fake = { env: {} };
const load = new Function("process", "__esm", "__name", "getProcessAncestry", ...outside,
  source + "\ninit_detect_agent();\nreturn { providers, detectAgent };");
const { providers, detectAgent } = load(fake, __esm, (f) => f, () => { ancestryCalls += 1; return []; },
  ...outside.map(() => () => {}));
const results = JSON.parse(fs.readFileSync(0, "utf8")).map((env) => { fake.env = env; return detectAgent(); });
const line = (offset) => text.slice(0, offset).split("\n").length;
process.stdout.write(JSON.stringify({
  providers: providers.map((p) => ({ id: p.id, type: p.type, envVars: p.envVars ?? [],
    customDetectors: (p.customDetectors ?? []).length })),
  results, ancestryCalls, lines: [line(start), line(end)],
}));
"""
# Conjuncts the course leaves alone because the other half of their group is removed (AGENT_VALUES).
KEPT_CONJUNCTS = frozenset({"HOME", "SHELL", "TERM_PROGRAM", "REPLIT_MODE"})


def bundle_detect_agent(envs: list[dict[str, str]]) -> dict[str, Any]:
    """What the pinned cli.js's detectAgent answers for each environment, and its providers."""
    toolchain = find_toolchain()
    cli_js = toolchain.wrangler_cli
    done = subprocess.run([str(toolchain.node), "-e", DETECT_AGENT_JS, str(cli_js)], input=json.dumps(envs),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def conditions(group: Any) -> list[list[tuple[str, str | None]]]:
    """The ways to satisfy one envVars group of am-i-vibing: each a list of (name, value or None for any value)."""
    def one(condition: Any) -> tuple[str, str | None]:
        return (condition, None) if isinstance(condition, str) else (condition[0], condition[1])

    if isinstance(group, str | list):
        return [[one(group)]]
    required = [one(condition) for condition in group.get("all", [])]
    alternatives = [one(condition) for condition in group.get("any", [])]
    return [required + [choice] for choice in alternatives] if alternatives else [required]


def stripped(name: str, value: str | None) -> bool:
    """Whether wrangler_env removes `name` set to `value` (None: whatever its value)."""
    return name in AGENT_VARIABLES or (value is not None and value in AGENT_VALUES.get(name, ()))


def test_wrangler_env_strips_every_agent_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable that makes wrangler take itself for an agent's tool reaches it, not even from `extra`; ordinary
    values of USER, PAGER, GIT_PAGER, HOME and TERM_PROGRAM are kept."""
    for name in AGENT_VARIABLES:
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    for name, values in AGENT_VALUES.items():
        for value in values:
            monkeypatch.setenv(name, value)
            env = wrangler_env(tmp_path, {"REPL_ID": "from-extra", "AI_AGENT": "crush"})
            assert name not in env, f"{name}={value!r} reaches wrangler"
            assert not AGENT_VARIABLES & env.keys(), f"reach wrangler: {sorted(AGENT_VARIABLES & env.keys())}"
            assert env["HOME"] == str(tmp_path)
            assert env["TERM_PROGRAM"] == "vscode"
    for name in AGENT_VARIABLES:
        assert os.environ[name] == "1", "os.environ itself is untouched"
    monkeypatch.setenv("USER", "learner")
    monkeypatch.setenv("PAGER", "less")
    monkeypatch.setenv("GIT_PAGER", "less -R")
    env = wrangler_env(tmp_path)
    assert (env["USER"], env["PAGER"], env["GIT_PAGER"]) == ("learner", "less", "less -R")


def test_agent_markers_cover_the_pinned_detect_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Against the pinned cli.js's own detectAgent: every way its providers recognise an agent is detected as such by
    itself, and none is once wrangler_env has built the environment; every variable it reads is known here; it neither
    looks at the process ancestry nor runs custom detectors. A wrangler bump that adds a marker fails here."""
    providers = bundle_detect_agent([])["providers"]
    assert len(providers) > 20, providers
    assert not [p["id"] for p in providers if p["customDetectors"]], "custom detectors cannot be switched off by env"
    agent_ways = [(p["id"], way) for p in providers if p["type"] == "agent"
                  for group in p["envVars"] for way in conditions(group)]
    read = {name for _, way in agent_ways for name, _ in way}
    unknown = read - AGENT_VARIABLES - AGENT_VALUES.keys() - KEPT_CONJUNCTS
    assert not unknown, f"cli.js's detectAgent reads variables AGENT_VARIABLES lacks: {sorted(unknown)}"
    uncovered = [(agent, way) for agent, way in agent_ways if not any(stripped(n, v) for n, v in way)]
    assert not uncovered, f"ways to be an agent that wrangler_env leaves intact: {uncovered}"

    raw = [{name: value or "1" for name, value in way} for _, way in agent_ways]
    built = []
    for env in raw:
        with monkeypatch.context() as patch:
            for name, value in env.items():
                patch.setenv(name, value)
            built.append(wrangler_env(tmp_path))
    answer = bundle_detect_agent([{}, *raw, *built])
    assert answer["results"][0] == {"isAgent": False, "id": None}
    detected = answer["results"][1:1 + len(raw)]
    assert all(result["isAgent"] for result in detected), list(zip(raw, detected, strict=True))
    after = answer["results"][1 + len(raw):]
    still = [(agent, result["id"]) for (agent, _), result in zip(agent_ways, after, strict=True) if result["isAgent"]]
    assert not still, f"wrangler still detects an agent after wrangler_env: {still}"
    assert answer["ancestryCalls"] == 0, "detectAgent looked at the process ancestry, which no env change hides"
    assert answer["lines"][0] < answer["lines"][1]


def test_deploy_does_not_act_for_an_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real pinned wrangler, started from an agent-driven editor or Replit: `deploy --dry-run` without a Worker
    name fails as in a plain terminal instead of naming the Worker after the project, the way it does for an agent
    (the same choice that registers a workers.dev subdomain unasked); the control run shows the probe works."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "index.js").write_text('export default { fetch() { return new Response("hi"); } };\n')
    (tmp_path / "package.json").write_text('{"name": "agent-probe", "main": "src/index.js"}\n')
    args = ("deploy", "--dry-run", "src/index.js")
    as_agent = "Using the project name \"agent-probe\" as the Worker name"
    control = subprocess.run(find_toolchain().wrangler_argv(*args), cwd=tmp_path, capture_output=True, text=True,
                             env={**wrangler_env(tmp_path / "logs"), "REPL_ID": "probe"}, timeout=60,
                             stdin=subprocess.DEVNULL)
    assert as_agent in control.stdout + control.stderr, control.stdout + control.stderr
    monkeypatch.setenv("REPL_ID", "probe")
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    monkeypatch.setenv("GIT_PAGER", "cat")
    result = run_wrangler(*args, cwd=tmp_path, echo=None, timeout=60, check=False)
    assert not result.ok
    assert as_agent not in result.output
    assert "You need to provide the name of your worker" in result.output


@pytest.mark.parametrize("name", [".env", ".env.local"])
def test_a_dotenv_file_never_reaches_the_stand_in(tmp_path: Path, name: str) -> None:
    """wrangler loads `.env` and `.env.local` of its folder into every command, over an empty variable: with a
    learner's API token there, the rehearsal's `whoami` would send it to the stand-in. The command is refused with
    a sentence in the learner's language and nothing runs; a real account's command and a local one still run."""
    from reservation_lab.runtime.cloud_env import stand_in
    from reservation_lab.runtime.context import Context

    (tmp_path / name).write_text("CLOUDFLARE_API_TOKEN=learners-own-token\n")
    rehearsal = Context(language="pt", cloud=stand_in({"CLOUDFLARE_API_BASE_URL": "http://127.0.0.1:9/client/v4"}))
    with raises_key("errors.rehearsal_env_file", WranglerError, command="whoami", path=tmp_path / name) as caught:
        run_wrangler("whoami", cwd=tmp_path, echo=None, ctx=rehearsal)
    assert "substituto" in caught.value.localized("pt")
    assert not (tmp_path / "logs").exists()  # refused before wrangler (and its log folder) started
    assert run_wrangler("--version", cwd=tmp_path, echo=None, ctx=rehearsal).returncode == 0  # local: not refused
