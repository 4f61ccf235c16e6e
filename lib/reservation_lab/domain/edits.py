"""Exact text edits of the Worker's source: the experiments' variants and the exercises' stubs and solutions."""

from __future__ import annotations

from collections.abc import Mapping

from reservation_lab.errors import LabError
from reservation_lab.i18n import quoted


def apply_edits(source: str, edits: Mapping[str, str]) -> str:
    """`source` with each `old` text replaced by its `new` one; each old text must occur exactly once."""
    for old, new in edits.items():
        count = source.count(old)
        if count != 1:
            raise LabError("errors.edit_not_once", text=quoted(old), count=count)
        source = source.replace(old, new)
    return source
