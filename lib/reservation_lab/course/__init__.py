"""The course layer: the one facade the notebook cells import, and the session behind it.

Cells write `from reservation_lab import course as lab` and call `lab.<name>(...)` for everything (d2l style);
`__all__` below is the whole surface a learner meets. May import every layer below it (domain, runtime, race, cloud,
i18n); only the rooms above it (`jupyter`, `authoring`, `teaching`, `classroom`) and `cli` import it. Its modules:
`session` (`lab.start`: the run, its context and ledger, and everything the session starts, stopped together),
`bound` (the lower layers' helpers passed the session's context), `two_clients` (one notebook in two tabs),
`kernel_extension` (errors explained from the kernel's start), `cloud_mode` (which Cloudflare steps 5-7 use),
`experiments`, `exercises` (grading), `display` (what cells show), `files` (`%%lab_file`), `friendly` (errors in the
learner's language), `parameters` (the papermill defaults). The authors' tools live in `authoring`, the teachers' in
`teaching`."""

from reservation_lab.cloud.verify import CLOUD_WORKSHOP
from reservation_lab.course.bound import (
    LabClient,
    check_equal,
    choose_account,
    delete_worker,
    deploy,
    dry_run,
    explain,
    login,
    logout,
    race_naive_and_atomic,
    run_node_tests,
    send_burst,
    verify,
    wait_until_ready,
    whoami,
)
from reservation_lab.course.cloud_mode import before_cleanup, choose_cloud
from reservation_lab.course.display import (
    decision_of,
    plot_race,
    print_json,
    say,
    show_config,
    show_decisions,
    show_race,
    shown_path,
    skip_cloud,
    write_report,
)
from reservation_lab.course.exercises import grade, hint, stop_grading
from reservation_lab.course.experiments import experiment, stop_experiments
from reservation_lab.course.friendly import friendly_traceback, lab_names
from reservation_lab.course.session import current, start, start_server, wrangler_version
from reservation_lab.domain.checker import check_history
from reservation_lab.domain.config import durable_object_config, read_config, worker_template
from reservation_lab.domain.invariants import check_burst, durable_view, expected_summary, totals_after
from reservation_lab.runtime.toolchain import pinned_wrangler_version

__all__ = [
    # the run and its local runtime (steps 1-4)
    "start", "current", "wrangler_version", "pinned_wrangler_version", "run_node_tests",
    "dry_run", "start_server", "LabClient", "send_burst", "read_config", "durable_object_config", "worker_template",
    # invariants and the serial-order checker
    "check_equal", "check_burst", "expected_summary", "durable_view", "totals_after", "check_history", "explain",
    # the race prelude
    "race_naive_and_atomic", "show_race", "plot_race",
    # experiments: one change to the Worker, run for real, judged by the checker
    "experiment", "stop_experiments",
    # the exercises notebook: grade a Worker on the real runtime, hints
    "grade", "hint", "stop_grading",
    # the cloud (steps 5-7)
    "choose_cloud", "login", "whoami", "choose_account", "deploy", "wait_until_ready", "CLOUD_WORKSHOP", "verify",
    "before_cleanup", "delete_worker", "logout",
    # what the cells show
    "shown_path", "print_json", "say", "skip_cloud", "show_config", "show_decisions", "decision_of",
    "write_report",
    # errors in the learner's language
    "friendly_traceback", "lab_names",
]
