"""The wrangler configs of a run (main and cleanup) and its Worker name, derived from worker/wrangler.jsonc.

The template worker/wrangler.jsonc is the one source of the Worker's settings: compatibility date, workers.dev,
preview URLs, observability, the Durable Object binding and its SQLite class. Every config a run writes is that template
with the run's name (and account ID), or, for cleanup, the template's class marked deleted.
"""

from __future__ import annotations

import copy
import json
import re
import secrets
import shutil
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import json5

from reservation_lab.errors import LabError
from reservation_lab.i18n import quoted
from reservation_lab.paths import WORKER_DIR, WORKER_SRC
from reservation_lab.runtime.layout import RunLayout

RUN_PREFIX = "labex-c10-o03-"
RUN_NAME = re.compile(r"^labex-c10-o03-[0-9a-f]{12}$")
TEMPLATE = WORKER_DIR / "wrangler.jsonc"


class RunPaths(RunLayout, Protocol):
    """What a config writer needs of a run (domain.runs.RunFolder has it): the runtime's layout, the Worker name
    and the cleanup config's path."""

    @property
    def name(self) -> str: ...
    @property
    def cleanup_config(self) -> Path: ...


@cache
def _parsed_template() -> dict[str, Any]:
    return json5.loads(TEMPLATE.read_text())


def worker_template() -> dict[str, Any]:
    """worker/wrangler.jsonc parsed (JSONC, comments allowed); a fresh copy the caller may change."""
    return copy.deepcopy(_parsed_template())


def _the_binding(template: dict[str, Any]) -> dict[str, str]:
    (binding,) = template["durable_objects"]["bindings"]  # the lab has exactly one Durable Object binding
    return binding


BINDING: str = _the_binding(_parsed_template())["name"]
CLASS_NAME: str = _the_binding(_parsed_template())["class_name"]
PLACEHOLDER_NAME: str = _parsed_template()["name"]  # the template's name; each run writes its own


def new_run_name() -> str:
    """A unique Worker name: the lab prefix and 12 random hex digits."""
    return RUN_PREFIX + secrets.token_hex(6)


def check_run_name(name: str) -> str:
    """Return name if it is a name this lab generates, else refuse."""
    if not RUN_NAME.fullmatch(name):
        raise LabError("errors.not_a_run_name", name=quoted(name), prefix=RUN_PREFIX)
    return name


def _named(name: str, account_id: str | None, settings: dict[str, Any]) -> dict[str, Any]:
    """The seed's order: the editor's `$schema` line (when the settings have one), name, account_id (only when
    given), then the other settings in their order; a name or account ID in `settings` is replaced."""
    rest = {key: value for key, value in settings.items() if key not in ("$schema", "name", "account_id")}
    config: dict[str, Any] = {"$schema": settings["$schema"]} if settings.get("$schema") else {}
    config["name"] = check_run_name(name)
    if account_id:
        config["account_id"] = account_id
    config.update(rest)
    return config


def wrangler_config(name: str, account_id: str | None = None, text: str | None = None) -> dict:
    """The lab's wrangler.jsonc content for Worker `name`: the template (or `text`, a learner's edit of it)
    with this name (and account)."""
    settings = worker_template() if text is None else parse_jsonc(text, "wrangler.jsonc")
    return _named(name, account_id, settings)


def parse_jsonc(text: str, label: str) -> dict[str, Any]:
    """A JSONC object (comments and trailing commas allowed), or a LabError naming what is wrong."""
    try:
        data = json5.loads(text)
    except ValueError as error:
        raise LabError("errors.config_not_jsonc", label=label, error=error) from None
    if not isinstance(data, dict):
        raise LabError("errors.config_not_object", label=label)
    return data


def durable_object_config(config: dict[str, Any]) -> dict[str, Any]:
    """What the lab needs from a wrangler config: the Durable Object binding's name and class, and the storage
    that class is exported with (None where the config lacks it)."""
    bindings = (config.get("durable_objects") or {}).get("bindings") or [{}]
    binding = bindings[0] if isinstance(bindings[0], dict) else {}
    export = (config.get("exports") or {}).get(binding.get("class_name")) or {}
    return {"binding": binding.get("name"), "class": binding.get("class_name"), "storage": export.get("storage")}


def read_config(path: Path) -> dict[str, Any]:
    """A run's wrangler config file as a dict (parse_jsonc: a clear LabError if it is not one JSONC object; a
    missing file says to run its cell)."""
    if not path.is_file():
        raise LabError("errors.config_missing", path=path.name)
    return parse_jsonc(path.read_text(), path.name)


def cleanup_config(name: str, account_id: str | None = None) -> dict:
    """The tombstone config: the stateless cleanup entry and the class namespace marked deleted."""
    template = worker_template()
    export = template["exports"][CLASS_NAME]
    return _named(
        name,
        account_id,
        {
            "$schema": template.get("$schema"),
            "main": "src/cleanup.js",
            "compatibility_date": template["compatibility_date"],
            "workers_dev": template["workers_dev"],
            "preview_urls": template["preview_urls"],
            "exports": {CLASS_NAME: {"type": export["type"], "state": "deleted"}},
        },
    )


def _write_jsonc(path: Path, config: dict) -> Path:
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def write_wrangler_config(run: RunPaths, account_id: str | None = None, text: str | None = None) -> Path:
    """Write the run's wrangler.jsonc (from the template, or `text`); the account ID goes to the file only."""
    return _write_jsonc(run.config, wrangler_config(run.name, account_id, text))


def cleanup_config_text() -> str:
    """The tombstone config as the step-7 cell shows it (derived from the template, placeholder name)."""
    return json.dumps(cleanup_config(PLACEHOLDER_NAME), indent=2) + "\n"


def write_cleanup_config_text(run: RunPaths, text: str, account_id: str | None = None) -> Path:
    """Write wrangler.cleanup.jsonc from a cell's text, with this run's name (and account)."""
    settings = parse_jsonc(text, "wrangler.cleanup.jsonc")
    return _write_jsonc(run.cleanup_config, _named(run.name, account_id, settings))


def write_cleanup_config(run: RunPaths, account_id: str | None = None) -> Path:
    """Write src/cleanup.js and wrangler.cleanup.jsonc for exactly this run's Worker."""
    shutil.copyfile(WORKER_SRC / "cleanup.js", run.root / "src" / "cleanup.js")
    return _write_jsonc(run.cleanup_config, cleanup_config(run.name, account_id))


def redacted(config: dict, placeholder: str = "<hidden>") -> dict:
    """A copy fit for display: the account ID is replaced by `placeholder` (the notebook's word for hidden)."""
    shown = dict(config)
    if "account_id" in shown:
        shown["account_id"] = placeholder
    return shown
