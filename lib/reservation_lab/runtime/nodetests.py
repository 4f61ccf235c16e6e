"""Run the Worker's deterministic node tests (routing, validation, the object's SQL)."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from reservation_lab.errors import LabError
from reservation_lab.paths import WORKER_DIR
from reservation_lab.runtime.commands import announce
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.toolchain import find_toolchain

NODE_TEST_ARGS = ("--experimental-loader", "./test/cloudflare-loader.mjs", "--test", "test/worker.test.mjs")


@dataclass(frozen=True)
class NodeTestResult:
    passed: int
    failed: int
    output: str


def run_node_tests(worker_dir: Path = WORKER_DIR, timeout: float = 120, ctx: Context = QUIET) -> NodeTestResult:
    """`NODE_NO_WARNINGS=1 node --experimental-loader ./test/cloudflare-loader.mjs --test test/worker.test.mjs`.

    Runs in `worker_dir` (default worker/; the course passes the run folder, so the learner's edit is tested):
    a folder with `src/`, `test/` and the package.json that makes them ES modules. Raises LabError unless all pass.
    """
    node = find_toolchain().node
    env = dict(os.environ, NODE_NO_WARNINGS="1", NO_COLOR="1")
    announce(worker_dir, ["node", *NODE_TEST_ARGS], {"NODE_NO_WARNINGS": "1"}, ctx=ctx)
    proc = subprocess.run(
        [str(node), *NODE_TEST_ARGS], cwd=worker_dir, env=env, capture_output=True, text=True, timeout=timeout
    )
    output = proc.stdout + proc.stderr
    passed = _count(r"^# pass (\d+)", output)
    failed = _count(r"^# fail (\d+)", output)
    if proc.returncode != 0 or failed or not passed:
        raise LabError("errors.node_tests_failed", passed=passed, failed=failed, output=output[-2000:])
    return NodeTestResult(passed, failed, output)


def _count(pattern: str, text: str) -> int:
    match = re.search(pattern, text, re.MULTILINE)
    return int(match.group(1)) if match else 0
