"""A Cloudflare double per test, the environment pointed at it, and a run folder for its account."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reservation_lab.cloudflare_double.double import CloudflareDouble
from reservation_lab.cloudflare_double.scenarios import SCENARIOS
from reservation_lab.domain.config import write_cleanup_config, write_wrangler_config
from reservation_lab.domain.runs import RunFolder, create_run_folder


@pytest.fixture
def double(tmp_path: Path, offline_home: None, monkeypatch: pytest.MonkeyPatch,
           request: pytest.FixtureRequest) -> Iterator[CloudflareDouble]:
    """The double, wrangler authenticated by an API token (CLOUDFLARE_API_TOKEN); a learner of
    `cloudflare_double.scenarios` by indirect parametrization (default: a fresh free account)."""
    user = SCENARIOS[getattr(request, "param", "fresh")]()
    with CloudflareDouble(tmp_path / "double", user) as stand_in:
        for name, value in stand_in.environment().items():
            monkeypatch.setenv(name, value)
        yield stand_in
    assert stand_in.bundles.held.running() == {}


@pytest.fixture
def oauth_double(tmp_path: Path, offline_home: None, monkeypatch: pytest.MonkeyPatch,
                 request: pytest.FixtureRequest) -> Iterator[CloudflareDouble]:
    """The double without a token in the environment: wrangler logs in by the device flow, as a learner does
    (a learner of `cloudflare_double.scenarios` by indirect parametrization, as `double`)."""
    user = SCENARIOS[getattr(request, "param", "fresh")]()
    with CloudflareDouble(tmp_path / "double", user) as stand_in:
        for name, value in stand_in.environment(with_token=False).items():
            monkeypatch.setenv(name, value)
        yield stand_in
    assert stand_in.bundles.held.running() == {}


@pytest.fixture
def cloud_run(tmp_path: Path, double: CloudflareDouble) -> RunFolder:
    run = create_run_folder(tmp_path / "run")
    write_wrangler_config(run, double.account.id)
    write_cleanup_config(run, double.account.id)
    return run
