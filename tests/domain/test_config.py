"""Run names, run folders and the wrangler configs (main and cleanup) a run writes."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import json5
import pytest

from reservation_lab.domain.config import (
    check_run_name,
    new_run_name,
    read_config,
    redacted,
    wrangler_config,
    write_cleanup_config,
    write_wrangler_config,
)
from reservation_lab.domain.runs import RunFolder, create_run_folder
from reservation_lab.errors import LabError
from reservation_lab.i18n import quoted
from reservation_lab.paths import WORKER_DIR, WORKER_SRC
from tests.support import raises_key

NAME_SHAPE = re.compile(r"^labex-c10-o03-[0-9a-f]{12}$")
ACCOUNT_ID = "0123456789abcdef0123456789abcdef"
TEMPLATE = WORKER_DIR / "wrangler.jsonc"


@pytest.fixture
def run(tmp_path: Path) -> RunFolder:
    """A fresh run folder inside the test's tmp dir."""
    return create_run_folder(tmp_path / "run")


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text())


def _template() -> dict:
    """worker/wrangler.jsonc, the one source of the Worker's settings (JSONC: comments allowed)."""
    return json5.loads(TEMPLATE.read_text())

SCHEMA = "./node_modules/wrangler/config-schema.json"  # the seed's first line of both configs


def test_new_run_name_has_the_lab_shape() -> None:
    """Every generated name is the lab prefix and 12 lower-case hex digits."""
    for _ in range(50):
        assert NAME_SHAPE.fullmatch(new_run_name())


def test_new_run_name_is_unique_over_1000_calls() -> None:
    """1000 names, 1000 different Workers."""
    names = [new_run_name() for _ in range(1000)]
    assert len(set(names)) == 1000
    assert all(NAME_SHAPE.fullmatch(name) for name in names)


@pytest.mark.parametrize("name", ["labex-c10-o03-0123456789ab", "labex-c10-o03-000000000000",
                                  "labex-c10-o03-ffffffffffff"])
def test_check_run_name_accepts_lab_names(name: str) -> None:
    """A lab-shaped name is returned unchanged."""
    assert check_run_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("labex-c10-o04-0123456789ab", id="wrong-prefix"),
        pytest.param("my-worker-0123456789ab", id="other-prefix"),
        pytest.param("labex-c10-o03-0123456789AB", id="upper-case-hex"),
        pytest.param("labex-c10-o03-0123456789a", id="11-hex"),
        pytest.param("labex-c10-o03-0123456789abc", id="13-hex"),
        pytest.param("labex-c10-o03-0123456789ab\n", id="trailing-newline"),
        pytest.param(" labex-c10-o03-0123456789ab", id="leading-space"),
        pytest.param("labex-c10-o03-0123456789ag", id="non-hex"),
        pytest.param("", id="empty"),
    ],
)
def test_check_run_name_refuses_other_names(name: str) -> None:
    """Anything the lab did not generate is refused with a LabError naming the expected shape."""
    with raises_key("errors.not_a_run_name", LabError, name=quoted(name)):
        check_run_name(name)


def test_write_wrangler_config_content(run: RunFolder) -> None:
    """The main config: Durable Object binding, SQLite export, observability, no preview URLs, no account."""
    path = write_wrangler_config(run)
    assert path == run.config
    config = _read_json(path)  # .jsonc, but written as plain JSON
    compatibility_date = _template()["compatibility_date"]  # a choice made in the template only
    assert date.fromisoformat(compatibility_date).isoformat() == compatibility_date
    assert config == {
        "$schema": SCHEMA,
        "name": run.name,
        "main": "src/index.js",
        "compatibility_date": compatibility_date,
        "workers_dev": True,
        "preview_urls": False,
        "observability": {"enabled": True, "head_sampling_rate": 1},
        "durable_objects": {"bindings": [{"name": "WORKSHOPS", "class_name": "WorkshopReservations"}]},
        "exports": {"WorkshopReservations": {"type": "durable-object", "storage": "sqlite"}},
    }
    assert "account_id" not in config
    assert (run.root / config["main"]).is_file()


def test_write_wrangler_config_matches_the_worker_template(run: RunFolder) -> None:
    """Apart from the name, the generated config is the one in worker/wrangler.jsonc, in its order ($schema
    first, as in the seed)."""
    template = _template()
    template.pop("name")
    config = _read_json(write_wrangler_config(run))
    assert config.pop("name") == run.name
    assert config == template
    assert list(config) == list(template)


def test_account_id_follows_the_name(run: RunFolder) -> None:
    """With an account: $schema, name, account_id, then the template's keys in the template's order (the seed's)."""
    settings = [key for key in _template() if key not in ("$schema", "name")]
    assert list(_read_json(write_wrangler_config(run, account_id=ACCOUNT_ID))) == [
        "$schema", "name", "account_id", *settings]
    assert list(_read_json(write_wrangler_config(run))) == ["$schema", "name", *settings]


def test_account_id_only_when_given(run: RunFolder) -> None:
    """account_id is written when given, and absent when not given or empty."""
    assert _read_json(write_wrangler_config(run, account_id=ACCOUNT_ID))["account_id"] == ACCOUNT_ID
    assert "account_id" not in _read_json(write_wrangler_config(run, account_id=None))
    assert "account_id" not in _read_json(write_wrangler_config(run, account_id=""))
    assert _read_json(write_cleanup_config(run, account_id=ACCOUNT_ID))["account_id"] == ACCOUNT_ID
    assert "account_id" not in _read_json(write_cleanup_config(run))


def test_wrangler_config_refuses_a_foreign_name() -> None:
    """The config builder never writes a config for a Worker the lab did not name."""
    with pytest.raises(LabError):
        wrangler_config("production-api")


def test_write_cleanup_config(run: RunFolder) -> None:
    """The tombstone config: src/cleanup.js copied, the class marked deleted, the same Worker name."""
    main = _read_json(write_wrangler_config(run))
    path = write_cleanup_config(run)
    assert path == run.cleanup_config
    config = _read_json(path)
    assert config["name"] == main["name"] == run.name
    assert config["main"] == "src/cleanup.js"
    assert (run.root / "src" / "cleanup.js").read_bytes() == (WORKER_SRC / "cleanup.js").read_bytes()
    assert config["exports"] == {"WorkshopReservations": {"type": "durable-object", "state": "deleted"}}
    assert config["compatibility_date"] == main["compatibility_date"]
    assert "durable_objects" not in config
    assert config == {
        "$schema": SCHEMA,
        "name": run.name,
        "main": "src/cleanup.js",
        "compatibility_date": main["compatibility_date"],
        "workers_dev": main["workers_dev"],
        "preview_urls": main["preview_urls"],
        "exports": {"WorkshopReservations": {"type": "durable-object", "state": "deleted"}},
    }
    assert list(config) == ["$schema", "name", "main", "compatibility_date", "workers_dev", "preview_urls", "exports"]
    assert run.config.exists(), "writing the cleanup config must not touch the main config"
    assert _read_json(run.config) == main


def test_redacted_hides_account_id_without_mutating() -> None:
    """redacted() returns a copy with the account ID replaced; the input keeps it."""
    config = wrangler_config("labex-c10-o03-0123456789ab", account_id=ACCOUNT_ID)
    before = json.dumps(config, sort_keys=True)
    shown = redacted(config)
    assert shown["account_id"] != ACCOUNT_ID
    assert ACCOUNT_ID not in json.dumps(shown)
    assert json.dumps(config, sort_keys=True) == before
    assert config["account_id"] == ACCOUNT_ID
    assert {k: v for k, v in shown.items() if k != "account_id"} == {
        k: v for k, v in config.items() if k != "account_id"
    }


def test_redacted_without_account_id_is_an_equal_copy() -> None:
    """Nothing to hide: an equal dict, not the same object."""
    config = wrangler_config("labex-c10-o03-0123456789ab")
    shown = redacted(config)
    assert shown == config
    assert shown is not config
    assert "account_id" not in shown


def test_reading_a_config_that_was_never_written_says_to_run_its_cell(tmp_path: Path) -> None:
    """A run whose wrangler.jsonc cell has not run yet (e.g. a setup cell run again started a new run): the course's
    sentence naming the file, not a raw FileNotFoundError."""
    with raises_key("errors.config_missing", LabError, path="wrangler.jsonc"):
        read_config(tmp_path / "wrangler.jsonc")
