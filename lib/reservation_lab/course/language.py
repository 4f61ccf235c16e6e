"""The notebook's language in this kernel: set once by the setup cell, read by every line the helpers print."""

from __future__ import annotations

_LANGUAGE = {"current": "en"}


def set_language(language: str) -> None:
    _LANGUAGE["current"] = language


def current_language() -> str:
    """The language the setup cell set (English before, e.g. in scripts)."""
    return _LANGUAGE["current"]
