"""Sentences in the learner's language (de, pt, es; en for logs, scripts and tests).

Every sentence a helper or a cell prints, every error message and every check label is a key of one catalog
file per language (`catalogs/<language>.toml`), looked up by `message(key, **values)`. This is the lowest
layer: it imports nothing of the package, so every other layer may use it.
"""

from reservation_lab.i18n.catalog import (
    COURSE_LANGUAGES,
    REFERENCE,
    Message,
    describe,
    language_name,
    languages,
    message,
    number,
    plural,
    quoted,
)

__all__ = ["COURSE_LANGUAGES", "REFERENCE", "Message", "describe", "language_name", "languages", "message", "number",
           "plural", "quoted"]
