"""The one command line: `python -m reservation_lab <command>` (and `./lab <command>`, which installs first).

    run       execute a course notebook with papermill (local default) and print the invariant summary
    local     the same, never touching the cloud (steps 5-7 print that they were skipped)
    build     regenerate the notebooks from notebooks/source (build | check | execute [LANG ...])
    grade     a teacher's run: every learner notebook in a folder, a table learner x check
    nbgrader  write the exercises as an nbgrader course (a teacher's JupyterHub)
    site      the course as a static website in every language (offline; build/site/ by default)
    translations  the translated entries whose English original changed (--accept LANG [KEY ...]: revisited)
    verify    independent check of a cloud run: deployed (steps 5-6) or deleted (step 7)
    cleanup   delete exactly what a cloud run deployed, after any failure, and prove it (verify deleted)
    drill     crash, load and bad-input drills against a local wrangler dev
    kernel    install the course's named Jupyter kernel (idempotent) and print its name
    class     a class drill: N simulated learners run the lab at once on a real JupyterHub, measured
    jupyter   JupyterLab on the learner's own copies of the notebooks (workspace/, git-ignored), loopback only;
              its terminals have the course's node, npx and wrangler

Sits on top of every layer and imports each command's module only when that command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reservation_lab.errors import InvariantError, LabError
from reservation_lab.i18n import COURSE_LANGUAGES

SUMMARY_KEYS = ("summary", "status_after_burst", "status_after_restart", "replayed", "final_status")


def _run(args: argparse.Namespace) -> int:
    from reservation_lab.authoring.papermill_run import run_course
    from reservation_lab.course.parameters import DEFAULTS

    cloud = "rehearsal" if getattr(args, "cloud_rehearsal", False) else getattr(args, "cloud", False)
    options = {key: value for key, value in vars(args).items()
               if key in DEFAULTS and key != "cloud" and value is not None}
    report = run_course(cloud=cloud, **options)
    mode = {True: "cloud", False: "local"}.get(cloud, str(cloud))
    print(f"\nInvariant summary ({mode}, notebook {report['language']}):")
    print(json.dumps({key: report[key] for key in SUMMARY_KEYS}, indent=2))
    print(f"executed notebook: {report['notebook']}")
    return 0


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by `local` and `run`; their defaults are the notebook's parameters (course.parameters)."""
    from reservation_lab.course.parameters import DEFAULTS

    parser.add_argument("--language", help=f"notebook language: de, pt or es (default {DEFAULTS['language']})")
    parser.add_argument("--workdir", help="folder for this run's config, state and logs (default: .runs/<name>)")
    parser.add_argument("--workshop", help=f"workshop name (default {DEFAULTS['workshop']})")
    parser.add_argument("--burst-size", type=int, help=f"requests in the burst (default {DEFAULTS['burst_size']})")
    parser.add_argument("--port", type=int, help="loopback port for wrangler dev (default 0: a free one)")
    parser.add_argument("--no-experiments", dest="experiments", action="store_false", default=None,
                        help="skip the five experiments after step 4")
    parser.set_defaults(func=_run)


def _build(args: argparse.Namespace) -> int:
    from reservation_lab.authoring.builder import EXERCISES, LAB, build, execute, languages
    from reservation_lab.paths import REPO_ROOT

    if args.action == "check":
        stale = build(check_only=True)
        for path in stale:
            print(f"not in sync with notebooks/source: {path.relative_to(REPO_ROOT)}", file=sys.stderr)
        return 1 if stale else 0
    for path in build():
        print(f"wrote {path.relative_to(REPO_ROOT)}")
    if args.action == "execute":
        chosen = {"lab": LAB, "exercises": EXERCISES}
        for notebook in [chosen[name] for name in args.notebook or chosen]:
            for language in args.languages or [prose.language for prose in languages()]:
                print(f"executed {execute(language, notebook=notebook).relative_to(REPO_ROOT)}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    """Run the verifier for a run folder; 0 on PASS, 1 on FAIL (LabError for setup problems)."""
    from reservation_lab.cloud import steps
    from reservation_lab.cloud.verify import VerificationFailed
    from reservation_lab.domain.runs import open_run

    run = open_run(args.workdir)
    try:
        sizes = {"burst_size": args.burst_size} if args.burst_size else {}
        steps.verify(run, args.mode, app_url=args.app_url, **sizes)
    except VerificationFailed as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


def _cleanup(args: argparse.Namespace) -> int:
    """Delete what a run deployed (re-runnable after any failure); 0 once `verify deleted` passes."""
    from reservation_lab.cloud.cleanup import cleanup
    from reservation_lab.cloud.verify import VerificationFailed

    try:
        cleanup(args.workdir)
    except VerificationFailed as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


def _kernel(args: argparse.Namespace) -> int:
    from reservation_lab.jupyter.kernelspec import ensure_kernel

    print(ensure_kernel())
    return 0


def _jupyter(args: argparse.Namespace) -> int:
    from reservation_lab.jupyter.jupyterlab import launch

    launch(args.extra)
    return 0  # not reached: launch() replaces this process


def _add_parameter_option(parser: argparse.ArgumentParser, text: str) -> None:
    """`-p NAME VALUE`, repeatable: a notebook parameter, its value read as YAML (`_parameters`)."""
    parser.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                        help=text)


def _parameters(args: argparse.Namespace) -> dict[str, object]:
    import yaml

    return {name: yaml.safe_load(value) for name, value in args.parameter}

MARKED = "marked"  # the default folder of a teacher's run, beside the submissions


def _mark(args: argparse.Namespace) -> int:
    """Grade every learner notebook in a folder; print the table (CSV and JSON beside the runs)."""
    from reservation_lab.teaching.marking import mark_all, render

    submissions = Path(args.submissions).resolve()
    out = Path(args.out).resolve() if args.out else submissions / MARKED
    results = mark_all(submissions, out, args.language, _parameters(args), jobs=args.jobs, timeout=args.timeout)
    print(render(results))
    print(f"\n{out / 'marks.csv'}\n{out / 'marks.json'}")
    return 0


def _add_mark(sub: argparse._SubParsersAction) -> None:
    grade = sub.add_parser("mark", help="a teacher's run: every learner notebook in a folder, a table learner x check")
    grade.add_argument("submissions", help="a folder of learner notebooks (*.ipynb; the file name names the learner)")
    grade.add_argument("--language", default="de", choices=COURSE_LANGUAGES)
    grade.add_argument("--out", help=f"where the runs, marks.csv and marks.json go (default: SUBMISSIONS/{MARKED})")
    grade.add_argument("--jobs", type=int, help="notebooks run at the same time (default: half the cores)")
    grade.add_argument("--timeout", type=float, default=900, help="seconds one notebook may run (then: hung)")
    _add_parameter_option(grade, "a notebook parameter for every run (YAML value), e.g. -p seed 7 -p workloads 10")
    grade.set_defaults(func=_mark)


def _nbgrader(args: argparse.Namespace) -> int:
    from reservation_lab.teaching.nbgrader_course import describe, write_course

    folder = Path(args.folder).resolve()
    write_course(folder, args.language, _parameters(args))
    print(describe(folder))
    return 0


def _add_nbgrader(sub: argparse._SubParsersAction) -> None:
    course = sub.add_parser("nbgrader", help="write the exercises as an nbgrader course (a teacher's JupyterHub)")
    course.add_argument("folder", help="the course folder: nbgrader_config.py and source/reservations/ go there")
    course.add_argument("--language", default="de", choices=COURSE_LANGUAGES)
    _add_parameter_option(course, "a parameter of the graded notebook (YAML value), e.g. -p workloads 10")
    course.set_defaults(func=_nbgrader)


def _site(args: argparse.Namespace) -> int:
    from reservation_lab.website.build import DEFAULT_OUTPUT, Launch, SiteError, build_site

    try:
        front = build_site(Path(args.output).resolve() if args.output else DEFAULT_OUTPUT,
                           Launch(args.repository, args.branch, args.jupyterhub))
    except SiteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"website: {front}")
    print(f"to look at it (search needs http): python3 -m http.server --bind 127.0.0.1 --directory {front.parent}")
    return 0


def _add_site(sub: argparse._SubParsersAction) -> None:
    site = sub.add_parser("site", help="the course as a static website in every language (offline)")
    site.add_argument("--output", help="the website's folder, replaced (default: build/site)")
    site.add_argument("--repository", help="https://github.com/OWNER/NAME: repository and Binder launch buttons")
    site.add_argument("--branch", default="main", help="the branch Binder and JupyterHub open (default: main)")
    site.add_argument("--jupyterhub", help="https:// address of a JupyterHub: a launch button through nbgitpuller")
    site.set_defaults(func=_site)


def _translations(args: argparse.Namespace) -> int:
    from reservation_lab.authoring.translations import accept, stale, translated_languages

    if args.accept:
        for key in accept(args.accept, args.keys or None):
            print(f"{args.accept} {key}: fingerprint recorded")
        return 0
    found = [entry for language in translated_languages() for entry in stale(language)]
    for entry in found:
        print(entry)
    print(f"{len(found)} stale" if found else "every translation is current")
    return 1 if found else 0


def _class(args: argparse.Namespace) -> int:
    """The class drill (classroom.drill): the table, class-report.json and progress.png in the drill's folder."""
    from reservation_lab.classroom.drill import run_class, table
    from reservation_lab.paths import RUNS_DIR

    folder = Path(args.folder) if args.folder else RUNS_DIR / f"class-{args.learners}"
    overrides = {} if args.experiments else {"experiments": False}
    report = run_class(args.learners, folder, ramp=args.ramp, hub_url=args.hub, overrides=overrides,
                       solo=not args.no_solo)
    print(table(report))
    print(f"\n{folder / 'class-report.json'}\n{folder / 'progress.png'}")
    return 0 if report.passed else 1


def _add_class(sub: argparse._SubParsersAction) -> None:
    drill = sub.add_parser("class", help="N simulated learners run the lab at once on a real JupyterHub, measured")
    drill.add_argument("--learners", type=int, default=4, help="how many learners (default 4)")
    drill.add_argument("--ramp", type=float, default=0.0, help="seconds over which their starts are spread")
    drill.add_argument("--hub", help="an existing hub's URL (admin token in RESERVATION_LAB_HUB_TOKEN); "
                                     "default: a JupyterHub started on loopback for the drill")
    drill.add_argument("--folder", help="where the hub, homes and report go (default .runs/class-N)")
    drill.add_argument("--no-experiments", dest="experiments", action="store_false",
                       help="learners set experiments = False (the five experiments after step 4 skipped)")
    drill.add_argument("--no-solo", action="store_true", help="skip the one-learner-alone baseline")
    drill.set_defaults(func=_class)


def _add_translations(sub: argparse._SubParsersAction) -> None:
    tr = sub.add_parser("translations", help="the translated entries whose English original changed (TRANSLATING.md)")
    tr.add_argument("--accept", metavar="LANG", help="record the current English fingerprints for LANG's KEYs")
    tr.add_argument("keys", nargs="*", help="with --accept: section.key or lab:name / exercises:name (default: all)")
    tr.set_defaults(func=_translations)


def _add_drills(sub: argparse._SubParsersAction) -> None:
    from reservation_lab.drills import bad_input, crash, load

    drills = sub.add_parser("drill", help="crash, load and bad-input drills against a local wrangler dev")
    kinds = drills.add_subparsers(dest="drill", required=True)
    crash.add_arguments(kinds.add_parser("crash", help="SIGKILL the dev server mid-burst, restart, replay"))
    load.add_arguments(kinds.add_parser("load", help="many distinct requests at rising concurrency, nothing lost"))
    bad_input.add_arguments(kinds.add_parser("bad-input", help="malformed requests: documented 4xx, state unchanged"))


def parser() -> argparse.ArgumentParser:
    """The whole command tree."""
    root = argparse.ArgumentParser(prog="reservation_lab", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = root.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="execute a course notebook with papermill, print the invariants")
    _add_run_options(run)
    clouds = run.add_mutually_exclusive_group()
    clouds.add_argument("--cloud", action="store_true", help="also run steps 5-7 against your Cloudflare account")
    clouds.add_argument("--cloud-rehearsal", action="store_true",
                        help="run steps 5-7 against a local stand-in for Cloudflare's API (no account, offline)")
    run.add_argument("--account-name", help="the Cloudflare account's display name (default: the notebook's)")
    _add_run_options(sub.add_parser("local", help="the course notebook on the local runtime only"))
    build = sub.add_parser("build", help="regenerate the notebooks from notebooks/source")
    build.add_argument("action", nargs="?", default="build", choices=["build", "check", "execute"])
    build.add_argument("languages", nargs="*", help="languages to execute (default: all)")
    build.add_argument("--notebook", choices=("lab", "exercises"), action="append",
                       help="which notebook to execute (default: both; repeatable)")
    build.set_defaults(func=_build)
    verify = sub.add_parser("verify", help="independent check of a cloud run: deployed (steps 5-6) or deleted (7)")
    verify.add_argument("mode", choices=("deployed", "deleted"))
    verify.add_argument("--workdir", required=True, help="the run folder (its wrangler.jsonc names Worker, account)")
    verify.add_argument("--app-url", help="the Worker URL (default: the URL of the run's last deploy)")
    verify.add_argument("--burst-size", type=int, help="the size of step 5's burst to cloud-launch")
    verify.set_defaults(func=_verify)
    clean = sub.add_parser("cleanup", help="delete what a cloud run deployed (re-runnable), then verify deleted")
    clean.add_argument("--workdir", required=True, help="the run folder (its wrangler.jsonc names Worker, account)")
    clean.set_defaults(func=_cleanup)
    _add_drills(sub)
    _add_mark(sub)
    _add_nbgrader(sub)
    _add_translations(sub)
    _add_site(sub)
    _add_class(sub)
    sub.add_parser("kernel", help="install the course's Jupyter kernel").set_defaults(func=_kernel)
    jupyter = sub.add_parser("jupyter", help="JupyterLab on your own copies of the notebooks in workspace/ "
                                             "(notebooks/ untouched; 127.0.0.1; terminals can redo the lab)")
    jupyter.set_defaults(func=_jupyter)
    return root


def main(argv: list[str] | None = None) -> int:
    tree = parser()
    args, extra = tree.parse_known_args(argv)
    if extra and args.command != "jupyter":  # only `jupyter` passes unknown options on (to `jupyter lab`)
        tree.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    try:
        return args.func(args)
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except InvariantError as exc:
        print(f"invariant broken: {exc}", file=sys.stderr)
        return 1
