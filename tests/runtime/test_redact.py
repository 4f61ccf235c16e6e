"""redact(): account IDs, e-mails and tokens are hidden; ordinary lab output is left alone."""

from __future__ import annotations

import pytest

from reservation_lab.runtime.redact import redact

ACCOUNT_ID = "0123456789abcdef0123456789abcdef"
TOKEN = "Xy7_abcDEF-0123456789.ghijKLMNop~+/"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(f"account {ACCOUNT_ID}", id="bare"),
        pytest.param(f'"account_id": "{ACCOUNT_ID}"', id="json-field"),
        pytest.param(f"https://dash.cloudflare.com/{ACCOUNT_ID}/workers/overview", id="url"),
        pytest.param(f"│ Lab account │ {ACCOUNT_ID} │", id="whoami-table"),
        pytest.param(f"CLOUDFLARE_ACCOUNT_ID={ACCOUNT_ID}", id="env-assignment"),
    ],
)
def test_account_ids_are_hidden(text: str) -> None:
    """A 32-hex account ID never survives, whatever surrounds it."""
    shown = redact(text)
    assert ACCOUNT_ID not in shown
    assert "<hidden-id>" in shown


@pytest.mark.parametrize(
    "email",
    ["learner@example.com", "first.last+lab@mail.example.org", "a_b-c%d@sub-domain.example.org"],
)
def test_emails_are_hidden(email: str) -> None:
    """E-mail addresses are replaced, the text around them is kept."""
    shown = redact(f"Logged in as {email}.")
    assert email not in shown
    assert shown.startswith("Logged in as <hidden-email>")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        pytest.param(f'{{"token": "{TOKEN}"}}', '"token": "', id="json-token"),
        pytest.param(f"{{'api_token': '{TOKEN}'}}", "'api_token': '", id="single-quoted"),
        pytest.param(f"Authorization: Bearer {TOKEN}", "Authorization: ", id="bearer-header"),
        pytest.param(f"authorization: bearer {TOKEN}", "authorization: ", id="bearer-lower-case"),
        pytest.param(f"CLOUDFLARE_API_TOKEN={TOKEN}", "CLOUDFLARE_API_TOKEN=", id="env-assignment"),
        pytest.param(f"token = {TOKEN}", "token = ", id="spaced-assignment"),
    ],
)
def test_token_values_are_hidden(text: str, kept: str) -> None:
    """The token value goes, the key that names it stays."""
    shown = redact(text)
    secret_part = TOKEN[:20]
    assert secret_part not in shown
    assert "<hidden-token>" in shown
    assert kept in shown


def test_bearer_keyword_does_not_leave_the_token_behind() -> None:
    """`Bearer <token>` is hidden as a whole, not just the word Bearer."""
    shown = redact(f"Authorization: Bearer {TOKEN}\n")
    assert shown == "Authorization: <hidden-token>\n"


@pytest.mark.parametrize(
    "text",
    [
        "Ready on http://127.0.0.1:8787",
        "[wrangler:info] POST /workshops/launch-day/reservations 201 Created (12ms)",
        '{"requestId": "request-3", "seats": 1, "status": "accepted", "reserved": 3, "replayed": false}',
        "labex-c10-o03-0123456789ab",
        "Uploaded labex-c10-o03-0123456789ab (1.23 sec)",
        "https://labex-c10-o03-0123456789ab.example.workers.dev",
        "version deadbeef, build 0123456789abcdef",
        "commit 0123456789ab",
        "the token bucket refills every second",
        "Authorization header missing",
        "token: short",
        "user at example dot com",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    """Lab output, run names and short hex are not secrets."""
    assert redact(text) == text


def test_several_secrets_in_one_text() -> None:
    """Every secret in a multi-line log is hidden; the rest of each line stays."""
    log = (
        f"Getting User settings for learner@example.com\n"
        f"account_id = {ACCOUNT_ID}\n"
        f'{{"token": "{TOKEN}"}}\n'
        "Deployed labex-c10-o03-0123456789ab\n"
    )
    shown = redact(log)
    assert "learner@example.com" not in shown
    assert ACCOUNT_ID not in shown
    assert TOKEN[:20] not in shown
    assert shown.splitlines()[0] == "Getting User settings for <hidden-email>"
    assert shown.splitlines()[3] == "Deployed labex-c10-o03-0123456789ab"


def test_redact_is_idempotent() -> None:
    """Redacting twice changes nothing more."""
    text = f"learner@example.com {ACCOUNT_ID} Authorization: Bearer {TOKEN}"
    once = redact(text)
    assert redact(once) == once


@pytest.mark.parametrize("prefix", ["CLOUDFLARE_API_KEY=", "X-Auth-Key: "])
def test_global_api_key_is_hidden(prefix: str) -> None:
    """A Global API Key is a credential too."""
    key = "0123456789abcdef0123456789abcdef01234"
    assert key not in redact(f"{prefix}{key}")
