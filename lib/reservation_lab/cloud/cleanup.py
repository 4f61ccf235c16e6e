"""Remove what a run deployed, from whatever state a failure left it in, and find runs that were never cleaned.

A run folder records its cloud history in `logs/`: `deploy-<n>.ndjson` (wrangler's output of each deploy),
`may-be-deployed` (a deploy may have uploaded a Worker: every deploy but one that failed before uploading),
`rehearsal` (the deploys went to the Cloudflare double, which is gone with its kernel) and `verified-deleted`
(the verifier proved the Worker and its namespaces gone; the next deploy removes it). `cleanup` is step 7 made
re-runnable: the tombstone deploy only while a namespace remains, the delete only while the Worker exists, then
`verify deleted`, then how to log out.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from reservation_lab.cloud.api import CloudflareAPI, is_not_found
from reservation_lab.cloud.steps import (
    CLEANED,
    REHEARSED,
    UPLOADED,
    api_token,
    config_account_id,
    delete_worker,
    deploy,
    verify,
)
from reservation_lab.cloud.verify import Verdict
from reservation_lab.domain.config import check_run_name, write_cleanup_config
from reservation_lab.domain.runs import RunFolder, open_run
from reservation_lab.errors import LabError
from reservation_lab.i18n import message
from reservation_lab.paths import REPO_ROOT, RUNS_DIR
from reservation_lab.runtime.commands import relative_args, shown_folder
from reservation_lab.runtime.context import QUIET, Context
from reservation_lab.runtime.wrangler import STDOUT, Echo, echo_stream


def left_deployed(run: RunFolder) -> bool:
    """Whether the run deployed to a real account and was not proven deleted since."""
    return _deployed_not_cleaned(run.logs_dir)


def _deployed_not_cleaned(logs: Path) -> bool:
    deployed = (logs / UPLOADED).exists() or any('"type":"deploy"' in p.read_text().replace(" ", "")
                                                 for p in logs.glob("*deploy-*.ndjson"))
    return deployed and not (logs / CLEANED).exists() and not (logs / REHEARSED).exists()


def runs_left_deployed(runs_dir: Path = RUNS_DIR) -> list[Path]:
    """Run folders under `runs_dir` whose Worker may still exist in the account (oldest first). Every setup cell
    asks, so only the logs of each folder are looked at; a config is read only for a folder that deployed."""
    found = []
    for folder in runs_dir.glob("labex-c10-o03-*"):
        if not _deployed_not_cleaned(folder / "logs"):
            continue
        try:
            open_run(folder)  # a real run folder (its config names a lab Worker)
        except LabError:
            continue
        found.append(folder)
    return sorted(found, key=lambda folder: folder.stat().st_mtime)


def left_deployed_line(root: Path, language: str | None = None) -> str:
    """The sentence naming a run that may have left a Worker in the account, with its cleanup command."""
    return message("cloud.left_deployed", language, run=root.name, command=shlex.join(cleanup_words(root)))


def cleanup_words(root: Path) -> list[str]:
    """The cleanup command as a learner runs it from the repository root."""
    return [*relative_args([sys.executable], REPO_ROOT), "-m", "reservation_lab", "cleanup", "--workdir",
            shown_folder(root)]


def cleanup(workdir: str | Path, echo: Echo = STDOUT, ctx: Context = QUIET) -> Verdict:
    """Delete exactly this run's Worker and its namespace, whatever is left of them; then prove it. Re-runnable."""
    run = open_run(workdir)
    check_run_name(run.name)
    account_id = config_account_id(run)
    if not run.cleanup_config.exists():  # a failure before step 7 wrote it: the same file its cell writes
        write_cleanup_config(run, account_id)
    with CloudflareAPI(api_token(run, ctx), account_id, cloud=ctx.cloud) as api:
        exists = _worker_exists(api, run.name)
        namespaces = [n for n in api.durable_object_namespaces() if n.get("script") == run.name]
    if exists and namespaces:
        deploy(run, cleanup=True, echo=echo, ctx=ctx)
    if exists:
        delete_worker(run, echo=echo, ctx=ctx)
    verdict = verify(run, "deleted", account_id=account_id, attempts=3, ctx=ctx)
    stream = echo_stream(echo)
    if stream is not None:
        stream.write(ctx.say("cloud.log_out_hint") + "\n")
    return verdict


def _worker_exists(api: CloudflareAPI, name: str) -> bool:
    try:
        api.script_settings(name)
    except LabError as error:
        if is_not_found(error):
            return False
        raise
    return True
