"""Command line: `python -m reservation_lab <command>`."""

from __future__ import annotations

import argparse
import json
import sys

from reservation_lab.errors import InvariantError, LabError


def _local(args: argparse.Namespace) -> int:
    from reservation_lab.course.local_lab import run_local_lab

    report = run_local_lab(workdir=args.workdir, workshop=args.workshop, burst_size=args.burst_size, port=args.port)
    print("\nInvariant summary (local):")
    print(json.dumps({"summary": report.summary, "statusAfterBurst": report.status_after_burst,
                      "statusAfterRestart": report.status_after_restart,
                      "replayed": report.replay.get("replayed"), "finalStatus": report.final_status}, indent=2))
    return 0


def _run(args: argparse.Namespace) -> int:
    from reservation_lab.course.papermill_run import run_course

    report = run_course(language=args.language, workdir=args.workdir, workshop=args.workshop,
                        burst_size=args.burst_size, port=args.port, cloud=args.cloud, account_name=args.account_name)
    print(f"\nInvariant summary ({'cloud' if args.cloud else 'local'}, notebook {args.language}):")
    print(json.dumps({key: report[key] for key in ("summary", "status_after_burst", "status_after_restart",
                                                   "replayed", "final_status")}, indent=2))
    print(f"executed notebook: {report['notebook']}")
    return 0


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by `local` and `run`."""
    parser.add_argument("--workdir", help="folder for this run's config, state and logs (default: .runs/<name>)")
    parser.add_argument("--workshop", default="launch-day")
    parser.add_argument("--burst-size", type=int, default=10)
    parser.add_argument("--port", type=int, default=0, help="0 picks a free loopback port")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reservation_lab", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    local = sub.add_parser("local", help="run steps 2–4 of the lab on a local wrangler dev and check the invariants")
    _add_run_options(local)
    local.set_defaults(func=_local)
    run = sub.add_parser("run", help="execute the course notebook with papermill (local default), print the invariants")
    _add_run_options(run)
    run.add_argument("--language", default="de", help="notebook language: de, pt or es")
    run.add_argument("--cloud", action="store_true", help="also run steps 5-7 against your Cloudflare account")
    run.add_argument("--account-name", default="LabEx Learning")
    run.set_defaults(func=_run)
    from reservation_lab.cloud.verify import add_arguments as add_verify_arguments

    add_verify_arguments(sub.add_parser(
        "verify", help="independent check of a cloud run: deployed (steps 5-6) or deleted (step 7)"))
    drill = sub.add_parser("drill", help="crash, load and bad-input drills against a local wrangler dev")
    drills = drill.add_subparsers(dest="drill", required=True)
    from reservation_lab.drills import bad_input, crash, load

    crash.add_arguments(drills.add_parser("crash", help="SIGKILL the dev server mid-burst, restart, replay"))
    load.add_arguments(drills.add_parser("load", help="many distinct requests at rising concurrency, nothing lost"))
    bad_input.add_arguments(drills.add_parser("bad-input", help="malformed requests: documented 4xx, state unchanged"))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except InvariantError as exc:
        print(f"invariant broken: {exc}", file=sys.stderr)
        return 1
