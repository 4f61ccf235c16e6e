"""Helpers for the concurrent-reservations lab: toolchain, config, dev server, bursts, invariants."""

from reservation_lab.errors import LabError

__all__ = ["LabError"]
