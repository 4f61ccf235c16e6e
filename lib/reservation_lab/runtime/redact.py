"""Scrub account IDs, tokens and e-mail addresses from text before it is shown or stored."""

import re

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

_PATTERNS = [
    (re.compile(r"\b[0-9a-f]{32}\b"), "<hidden-id>"),
    (re.compile(r"\b[0-9a-f]{37}\b"), "<hidden-key>"),  # a Global API Key
    (re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"), "<hidden-email>"),
    (
        re.compile(r"(?i)(token|authorization)([\"']?\s*[:=]\s*[\"']?)(bearer\s+)?[A-Za-z0-9._~+/-]{20,}"),
        r"\1\2<hidden-token>",
    ),
]


def strip_ansi(text: str) -> str:
    """Remove terminal colour codes (wrangler colours errors even with NO_COLOR)."""
    return ANSI.sub("", text)


def redact(text: str) -> str:
    """Replace anything shaped like an account ID, an API key, an e-mail or a token."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
