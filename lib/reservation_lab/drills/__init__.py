"""Drills: failure experiments against a real `wrangler dev` that check the lab invariants still hold."""

import argparse
from collections.abc import Callable


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
