"""course.cloud_mode: which Cloudflare steps 5-7 use, the rehearsal's double, and the pause before step 7."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from reservation_lab.course import cloud_mode
from reservation_lab.course.session import Session, start
from reservation_lab.errors import LabError
from reservation_lab.runtime.cloud_env import REAL
from reservation_lab.runtime.commands import announce
from reservation_lab.runtime.wrangler import wrangler_env
from tests.support import raises_key


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    started = start("de", tmp_path / "run")
    yield started
    started.stop()


def test_a_real_cloud_run_all_stops_before_step_7_and_nothing_else_does(session: Session) -> None:
    cloud_mode.choose_cloud(True)
    with raises_key("cloud.paused_before_cleanup") as raised:
        cloud_mode.before_cleanup(True)
    assert "Schritt 6" in raised.value.localized("de") and "next cell" in str(raised.value)
    cloud_mode.before_cleanup(False)  # papermill and CI run through
    for mode in (False, "rehearsal"):
        cloud_mode.choose_cloud(mode)
        cloud_mode.before_cleanup(True)  # local runs and rehearsals have no dashboard to look at


def test_an_unknown_cloud_value_is_refused_in_the_learners_language(session: Session) -> None:
    with raises_key("cloud.unknown_mode") as raised:
        cloud_mode.choose_cloud("yes")
    assert '"rehearsal"' in raised.value.localized("es")


def test_before_the_setup_cell_there_is_no_session_to_choose_a_cloud_for() -> None:
    from reservation_lab.course import session as sessions

    previous, sessions._CURRENT["session"] = sessions._CURRENT["session"], None
    try:
        with raises_key("errors.no_session", LabError):
            cloud_mode.choose_cloud(True)
    finally:
        sessions._CURRENT["session"] = previous


LEARNERS_CREDENTIALS = {"CLOUDFLARE_API_TOKEN": "a-real-token-of-the-learner", "CLOUDFLARE_API_KEY": "k" * 37,
                        "CLOUDFLARE_EMAIL": "real@example.com", "CLOUDFLARE_AUTH_USE_KEYRING": "true",
                        "CLOUDFLARE_ACCOUNT_ID": "f" * 32, "CF_API_TOKEN": "legacy-token-of-the-learner",
                        "WRANGLER_CLIENT_ID": "someone-elses-oauth-client", "CLOUDFLARE_API_ENVIRONMENT": "staging"}


def test_the_rehearsal_points_cloud_commands_at_the_double_and_never_touches_the_kernels_environment(
        session: Session, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    for name, value in LEARNERS_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    before = dict(os.environ)
    cloud_mode.choose_cloud("rehearsal")
    double = session.rehearsal.double
    assert "Generalprobe:" in capsys.readouterr().out
    assert dict(os.environ) == before  # the kernel's environment is never written
    seen = session.context.cloud
    assert seen.get("CLOUDFLARE_API_BASE_URL") == double.origin + "/client/v4"
    assert seen.get("HOME") != before["HOME"]  # wrangler's login of the rehearsal lives apart from the real one
    for name in LEARNERS_CREDENTIALS:  # built, not inherited: no credential of the learner reaches the double
        assert seen.get(name) in (None, "false"), name
    assert seen.get("CLOUDFLARE_AUTH_USE_KEYRING") == "false"  # its logout cannot delete the learner's keyring key
    wrangler = seen.apply(wrangler_env(tmp_path / "logs"))
    assert not set(LEARNERS_CREDENTIALS.values()) - {"true"} & set(wrangler.values())
    assert wrangler["CLOUDFLARE_AUTH_USE_KEYRING"] == "false" and wrangler["HOME"] == seen.get("HOME")
    assert wrangler_env(tmp_path / "logs")["HOME"] == before["HOME"]  # local wrangler dev keeps the kernel's
    with httpx.Client(trust_env=False) as client:
        assert client.get(double.origin + "/client/v4/user").status_code == 400  # no token: refused, as Cloudflare
    showing = session.context.with_(show_commands=True)
    announce(tmp_path, ["npx", "wrangler", "deploy"], cloud=True, ctx=showing)
    announce(tmp_path, ["npx", "wrangler", "dev"], ctx=showing)
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].startswith("(Generalprobe) [") and shown[1].startswith("[")
    session.stop()  # what a re-run setup cell does to the previous session
    assert dict(os.environ) == before and not double.root.exists() and session.rehearsal is None
    session.stop()  # twice is fine
    following = start("de", tmp_path / "next")  # the next setup cell: the learner's own environment again
    assert following.context.cloud is REAL and not following.context.mark
    assert following.context.cloud.get("CLOUDFLARE_API_TOKEN") == "a-real-token-of-the-learner"
    cloud_mode.choose_cloud("rehearsal")
    cloud_mode.choose_cloud(True)  # from a rehearsal back to the real account within one session
    assert following.context.cloud is REAL and not following.context.mark and following.rehearsal is None
