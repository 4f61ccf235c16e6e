"""What every drill shares: option types and flags, its folder and dev server, the sync wrapper, report helpers."""

from __future__ import annotations

import argparse
import asyncio
import functools
import secrets
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from reservation_lab.domain.burst import run_outside_loop
from reservation_lab.domain.config import write_wrangler_config
from reservation_lab.domain.invariants import expected_totals
from reservation_lab.domain.runs import RunFolder, create_run_folder, serving
from reservation_lab.errors import InvariantError, LabError
from reservation_lab.runtime.devserver import DevServer

P = ParamSpec("P")
T = TypeVar("T")

# --- options -------------------------------------------------------------------------------------------------------


def bounded_int(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number within lo..hi, with a clear message otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside {lo}..{hi}")
        return value

    return parse


def require_between(what: str, value: int, lo: int, hi: int) -> None:
    """Refuse `value` outside lo..hi (for calls from Python, where argparse's `bounded_int` did not check it)."""
    if not lo <= value <= hi:
        raise LabError("drills.out_of_range", what=what, lo=lo, hi=hi, value=value)


def add_workdir_option(parser: argparse.ArgumentParser,
                       what: str = "run folder for config, state and logs") -> None:
    """`--workdir`: where the drill writes (default: a temporary folder, removed when the drill passed)."""
    parser.add_argument("--workdir", default=None,
                        help=f"{what} (default: a temporary one, kept only on failure)")


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """`--no-progress`: no progress bar."""
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (it is off anyway without a TTY)")


def choose_seed(seed: int | None) -> int:
    """The given seed, or a fresh random one (the report prints it, so a run can be repeated)."""
    return secrets.randbits(32) if seed is None else seed


def removed_note(workdir_given: bool, ok: bool) -> str:
    """What the CLI appends to the folder it names: ' (removed)' for a temporary folder of a drill that passed."""
    return "" if workdir_given or not ok else " (removed)"


# --- the drill's folder and its dev server --------------------------------------------------------------------------


@dataclass(frozen=True)
class DrillFolder:
    """Where a drill writes: the given `--workdir`, or a temporary folder that is removed if the drill passed."""

    root: Path
    temporary: bool

    @classmethod
    def open(cls, workdir: str | Path | None, prefix: str) -> DrillFolder:
        temporary = workdir is None
        root = Path(tempfile.mkdtemp(prefix=prefix)) if temporary else Path(workdir).expanduser().resolve()
        root.mkdir(parents=True, exist_ok=True)
        return cls(root, temporary)

    def run_folder(self, name: str | None = None) -> RunFolder:
        """A run folder (the root itself, or the subfolder `name`) with the Worker source and its wrangler config."""
        run = create_run_folder(self.root / name if name else self.root)
        write_wrangler_config(run)
        return run

    def finish(self, ok: bool) -> None:
        """Remove a temporary folder when the drill passed; keep it (for its logs) when it did not."""
        if self.temporary and ok:
            shutil.rmtree(self.root, ignore_errors=True)


@asynccontextmanager
async def serving_async(run: RunFolder, log_name: str, prove: bool = True) -> AsyncIterator[DevServer]:
    """domain.runs.serving for coroutines (entered and left in a thread). `prove=False` only stops: for a drill
    that checks what is left itself (after a SIGKILL, lingering TIME_WAIT connections are no listener)."""
    served = serving(run, prove=prove, log_name=log_name)
    server = await asyncio.to_thread(served.__enter__)
    try:
        yield server
    except BaseException as error:
        await asyncio.to_thread(served.__exit__, type(error), error, error.__traceback__)
        raise
    await asyncio.to_thread(served.__exit__, None, None, None)


def blocking(coroutine_function: Callable[P, Coroutine[Any, Any, T]], doc: str) -> Callable[P, T]:
    """A plain function that runs `coroutine_function` to completion, named like it without `_async`.

    Inside a running event loop (a notebook kernel) it refuses, with a LabError naming the coroutine to await.
    """

    @functools.wraps(coroutine_function)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_outside_loop(lambda: coroutine_function(*args, **kwargs), coroutine_function.__name__)

    run.__name__ = coroutine_function.__name__.removesuffix("_async")
    run.__qualname__ = coroutine_function.__qualname__.removesuffix("_async")
    run.__doc__ = doc
    return run


# --- verdicts and reports -------------------------------------------------------------------------------------------


def is_fresh(status: Mapping[str, Any]) -> bool:
    """True if a workshop's durable totals are those of a new one: no seat taken, no attempt stored."""
    fresh = expected_totals(0)
    return all(status.get(key) == fresh[key] for key in fresh if key != "capacity")


def invariant_problems(*checks: Callable[[], object]) -> list[str]:
    """Run checks of `reservation_lab.domain.invariants` (which raise InvariantError); the messages of those
    that failed, so a drill can record every broken invariant instead of stopping at the first."""
    problems = []
    for check in checks:
        try:
            check()
        except InvariantError as error:
            problems.append(str(error))
    return problems


def summed(items: str, attribute: str, doc: str) -> Any:
    """A read-only property: the sum of `attribute` over the list `self.<items>` (a report's trials or levels)."""
    return property(lambda self: sum(getattr(item, attribute) for item in getattr(self, items)), doc=doc)


def format_table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A plain-text table: a header row, then one row per item, every column right-aligned."""
    table = [tuple(head), *(tuple(row) for row in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in table)


def progress_bar(iterable: Iterable[T] | None = None, *, total: int | None = None, desc: str | None = None,
                 enabled: bool = True) -> Any:
    """A tqdm bar of requests on stderr, shown only when `enabled` and stderr is a terminal."""
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, file=sys.stderr, unit="req", dynamic_ncols=True,
                disable=not (enabled and sys.stderr.isatty()))
