"""Run wrangler subcommands offline-friendly, streaming their output as it comes."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypeVar

from reservation_lab.errors import WranglerError
from reservation_lab.i18n import Message
from reservation_lab.runtime.cloud_env import CloudEnvironment
from reservation_lab.runtime.commands import announce, relative_args, wrangler_words
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.layout import RunLayout
from reservation_lab.runtime.processes import kill_process_group
from reservation_lab.runtime.redact import redact, strip_ansi
from reservation_lab.runtime.toolchain import COMPILE_CACHE, compile_cache_env, find_toolchain

T = TypeVar("T")

OFFLINE_ENV = {  # nothing leaves the machine on wrangler's own initiative (also in the course's terminals)
    "WRANGLER_SEND_METRICS": "false",
    "DO_NOT_TRACK": "1",
    "CLOUDFLARE_CF_FETCH_ENABLED": "false",
}
QUIET_ENV = {  # ... and for the helpers: plain, non-interactive output
    **OFFLINE_ENV,
    "WRANGLER_HIDE_BANNER": "true",
    "NO_COLOR": "1",
    "FORCE_COLOR": "0",
    "CI": "true",
    "WRANGLER_LOG": "log",  # the default level: its "Ready on …" and reload lines are what the helpers wait for
}


NO_DEBUG_LOG = {"WRANGLER_WRITE_LOGS": "false"}  # wrangler's debug log holds every line it logs, secrets included

# wrangler asks am-i-vibing 0.5.0 whether an agent runs it (detectAgent, cli.js 148380-148390; its providers,
# 148174-148360) and, if so, `deploy` names the Worker after the folder, skips autoconfig's questions and registers a
# permanent, account-wide workers.dev subdomain without asking (cli.js 283994-284018 -> 152040-152047). Online IDEs and
# agent-driven editors set these variables; the course must behave there as in a plain terminal: none reaches wrangler.
# A variable counts when set and non-empty (and equal, where a value is given: checkEnvVar, cli.js 148097-148101); names
# are matched exactly, no prefixes; the first provider that matches decides (148148). Process ancestry is not consulted
# (wrangler passes an empty one: 148384, 148396), no provider has custom detectors, and wrangler has no opt-out variable
# or setting. CI (ci-info) and TTY detection never make wrangler an agent: they only pick confirm()'s fallback, "no" for
# the subdomain question (152049-152052 via 61269 and 224063 -> 133714-133723).
AGENT_VARIABLES = frozenset({  # removed whatever their value
    "OPENCODE", "OPENCODE_BIN_PATH", "OPENCODE_SERVER", "OPENCODE_APP_INFO", "OPENCODE_MODES",  # OpenCode, 148176
    "CLAUDECODE",  # Claude Code, 148194
    "CURSOR_TRACE_ID",  # Cursor: an agent with PAGER="head -n 10000 | cat" (148200), else interactive (148206)
    "ANTIGRAVITY_AGENT", "ANTIGRAVITY_PROJECT_ID",  # Antigravity, 148212
    "GEMINI_CLI",  # Gemini CLI when "1", 148218
    "CODEX_THREAD_ID",  # OpenAI Codex, 148225
    "REPL_ID",  # Replit: an agent on its own (148232; also 148275 and 148281)
    "AIDER_API_KEY",  # Aider, 148238
    "npm_config_yes",  # Bolt.new agent, with SHELL=/bin/jsh (148245; without it Bolt is interactive, 148251)
    "CODEIUM_EDITOR_APP_ROOT",  # Windsurf, 148290
    "CRUSH", "AGENT", "AI_AGENT",  # Crush when CRUSH="1", AGENT or AI_AGENT="crush" (148296); Amp when AGENT="amp"
    "AMP_CURRENT_THREAD_ID",  # Amp, 148307
    "AUGMENT_AGENT",  # Auggie when "1", 148313
    "QWEN_CODE",  # Qwen Code when "1", 148319
    "PI_CODING_AGENT",  # Pi when "true", 148355
})
AGENT_VALUES = {  # ordinary variables, removed only at the value that marks an agent together with another one
    "USER": ("swebot",),  # Jules: HOME=/home/jules and USER=swebot, 148188 (HOME stays)
    "PAGER": ("cat", "head -n 10000 | cat"),  # Zed agent: TERM_PROGRAM=zed and PAGER=cat, 148260; Cursor agent, 148200
    "GIT_PAGER": ("cat",),  # Copilot in VS Code: TERM_PROGRAM=vscode and GIT_PAGER=cat, 148325 (TERM_PROGRAM stays)
}


def without_agent_markers(env: dict[str, str]) -> dict[str, str]:
    """env without what makes wrangler take itself for an agent's tool (AGENT_VARIABLES, AGENT_VALUES)."""
    return {name: value for name, value in env.items()
            if name not in AGENT_VARIABLES and value not in AGENT_VALUES.get(name, ())}


class _Stdout:
    """`sys.stdout` as it is when a line is written (a notebook's stream, pytest's capture), not at import."""

    def __repr__(self) -> str:
        return "STDOUT"


STDOUT = _Stdout()
Echo = TextIO | _Stdout | None  # where a command's output lines go: a stream, STDOUT, or None for nowhere


def echo_stream(echo: Echo) -> TextIO | None:
    """The stream `echo` names right now (None: print nothing). The one convention of every helper's `echo`."""
    return sys.stdout if echo is STDOUT else echo  # type: ignore[return-value]


def keeps_debug_log(args: tuple[str, ...] | list[str]) -> bool:
    """Whether wrangler may write its debug log for `args`: only for commands that never touch an account.

    wrangler appends everything it logs (API URLs with the account ID, whoami's e-mail, the token that
    `auth token --json` prints) to a file in WRANGLER_LOG_PATH; the run folder is what a learner zips up when
    asking for help. So the log is an allow-list: `dev`, `--version` and `deploy --dry-run` keep it, every
    other command (login, whoami, auth token, deploy, delete, logout, …) writes none.
    """
    first = args[0] if args else ""
    return first in ("dev", "--version") or (first == "deploy" and "--dry-run" in args)


def _keep_loopback_off_proxies(env: dict[str, str]) -> None:
    """With a proxy set, wrangler sends loopback requests through it unless NO_PROXY names them: add them."""
    if not any(env.get(name) for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy")):
        return
    listed = [h for h in (env.get("NO_PROXY") or env.get("no_proxy") or "").split(",") if h.strip()]
    missing = [host for host in ("127.0.0.1", "localhost", "::1") if host not in listed]
    env["NO_PROXY"] = env["no_proxy"] = ",".join(listed + missing)


def wrangler_env(log_dir: Path, extra: dict[str, str] | None = None, debug_log: bool = True) -> dict[str, str]:
    """The environment for wrangler: no metrics, no banner/update check, logs inside the run (or none), and no agent
    markers (AGENT_VARIABLES, AGENT_VALUES; not even from `extra`): `deploy` never registers a subdomain unasked."""
    log_dir.mkdir(parents=True, exist_ok=True)
    env = compile_cache_env(os.environ)
    env.update(QUIET_ENV)
    env["WRANGLER_LOG_PATH"] = str(log_dir)
    _keep_loopback_off_proxies(env)
    if debug_log:
        env.pop("WRANGLER_WRITE_LOGS", None)
    else:
        env.update(NO_DEBUG_LOG)
    env.update(extra or {})
    return without_agent_markers(env)


def warm_compile_cache(cache: Path | None = None) -> bool:
    """Compile wrangler's bundle into Node's compile cache once (`cache`: runtime.toolchain.COMPILE_CACHE), as an
    installer's step: learners whose checkout is shared and read-only (a TLJH hub) then only read it. True when the
    cache holds an entry afterwards."""
    cache = cache or COMPILE_CACHE
    with tempfile.TemporaryDirectory(prefix="reservation-lab-warm-") as logs:
        env = wrangler_env(Path(logs), {"NODE_COMPILE_CACHE": str(cache)}, debug_log=False)
        subprocess.run(find_toolchain().wrangler_argv("--version"), env=env, capture_output=True, timeout=120,
                       stdin=subprocess.DEVNULL, check=False)
    return cache.is_dir() and any(path.is_file() for path in cache.rglob("*"))


@dataclass(frozen=True)
class WranglerResult:
    """What a finished wrangler command returned and printed: run_wrangler's `output` is stdout and stderr
    together, redacted; capture_wrangler's `output` is stdout and `errors` stderr, both unredacted (never print
    them: `auth token` and `whoami` answer with secrets)."""

    args: tuple[str, ...]
    returncode: int
    output: str
    errors: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run_wrangler(
    *args: str,
    cwd: Path,
    log_dir: Path | None = None,
    timeout: float = 300,
    echo: Echo = STDOUT,
    extra_env: dict[str, str] | None = None,
    check: bool = True,
    ctx: Context = QUIET,
) -> WranglerResult:
    """Run `wrangler <args>` in cwd, echoing each output line live; raise on failure if check.

    Absolute paths inside cwd are passed relative to it, and the command is announced as `npx wrangler …`.
    """
    args = tuple(relative_args(args, cwd))
    announce(cwd, wrangler_words(*args), cloud=not keeps_debug_log(args), ctx=ctx)
    proc = _spawn(args, cwd, log_dir, extra_env, stderr=subprocess.STDOUT, cloud=ctx.cloud)
    lines: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = redact(strip_ansi(raw))
            lines.append(line)
            stream = echo_stream(echo)
            if stream is not None:
                stream.write(line)
                stream.flush()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    returncode = _finish(proc, args, lambda: proc.wait(timeout=timeout))
    reader.join(timeout=10)
    result = WranglerResult(args=args, returncode=returncode, output="".join(lines))
    if check and not result.ok:
        raise WranglerError(failure(args, returncode, lines))
    return result


def capture_wrangler(*args: str, cwd: Path, log_dir: Path | None = None, timeout: float = 120,
                     shown: bool = True, ctx: Context = QUIET) -> WranglerResult:
    """Run `wrangler <args>` without echo; its result holds stdout and stderr unredacted: never print them.

    Only the command line is announced, unless `shown` is False (a command whose output is a secret, such as
    `auth token`, is never offered for pasting).
    """
    args = tuple(relative_args(args, cwd))
    if shown:
        announce(cwd, wrangler_words(*args), cloud=not keeps_debug_log(args), ctx=ctx)
    proc = _spawn(args, cwd, log_dir, None, stderr=subprocess.PIPE, cloud=ctx.cloud)
    out, err = _finish(proc, args, lambda: proc.communicate(timeout=timeout))
    return WranglerResult(args=args, returncode=proc.returncode, output=out, errors=err)


def failure(args: tuple[str, ...], code: int, lines: list[str], key: str = "errors.wrangler_failed") -> Message:
    """The message for a failed wrangler command: the command, its exit code and the lines that say why."""
    return Message(key, {"command": " ".join(args), "code": code, "summary": error_summary(lines)})


def _spawn(args: tuple[str, ...], cwd: Path, log_dir: Path | None, extra_env: dict[str, str] | None,
           stderr: int, cloud: CloudEnvironment) -> subprocess.Popen:
    """The pinned wrangler in its own process group, offline and quiet, stdout piped; a command that reaches an
    account gets the `cloud` environment (runtime.cloud_env: the real one, or a stand-in's)."""
    local = keeps_debug_log(args)
    if not local and cloud.isolated:
        _refuse_env_files(args, cwd)
    env = wrangler_env(log_dir or cwd / "logs", extra_env, debug_log=local)
    return subprocess.Popen(
        find_toolchain().wrangler_argv(*args), cwd=cwd,
        env=env if local else cloud.apply(env),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1,
        start_new_session=True,
    )


DOTENV_FILES = (".env", ".env.local")  # what every wrangler command loads from its folder (cli.js: loadDotEnv,
# getDefaultEnvFiles); the variables there beat an empty one in the environment, so the stand-in cannot blank them


def _refuse_env_files(args: tuple[str, ...], cwd: Path) -> None:
    """A stand-in's command (the rehearsal) must not get a `.env` file's variables, e.g. a learner's API token."""
    for name in DOTENV_FILES:
        if (cwd / name).exists():
            raise WranglerError("errors.rehearsal_env_file", command=" ".join(args[:1]), path=cwd / name)


def _finish(proc: subprocess.Popen, args: tuple[str, ...], wait: Callable[[], T]) -> T:
    """wait(); on a timeout (or an interrupt) kill the whole group, the timeout as a WranglerError."""
    try:
        return wait()
    except subprocess.TimeoutExpired as expired:
        kill_process_group(proc)
        raise WranglerError("errors.wrangler_timeout", command=" ".join(args),
                            seconds=round(expired.timeout)) from None
    except BaseException:
        kill_process_group(proc)
        raise


_BOILERPLATE = ("If you think this is a bug", "Logs were written to", "Note that there is a newer version")


def error_summary(lines: list[str]) -> str | Message:
    """The lines that say what went wrong: from the first error marker on, without wrangler's boilerplate."""
    start = next((i for i, line in enumerate(lines) if "[ERROR]" in line or line.lstrip().startswith("✘")), None)
    chosen = lines[start:] if start is not None else lines[-5:]
    kept = [line.strip() for line in chosen if line.strip() and not line.strip().startswith(_BOILERPLATE)]
    return " ".join(kept[:8]) or Message("errors.no_output")


def dry_run(run: RunLayout, echo: Echo = STDOUT, ctx: Context = QUIET) -> WranglerResult:
    """`wrangler deploy --dry-run`: bundle the Worker for real into the run's dist/, create nothing remote."""
    return run_wrangler("deploy", "--dry-run", "--config", str(run.config), "--outdir", str(run.root / "dist"),
                        cwd=run.root, echo=echo, ctx=ctx)
