"""cloud.accounts: step 1's account, chosen from `wrangler whoami --json`, with e-mails hidden in every name shown."""

from __future__ import annotations

import json

import pytest

from reservation_lab.cloud.accounts import Identity, choose_account, parse_whoami
from reservation_lab.errors import LabError
from tests.support import raises_key

LAB_ID = "0123456789abcdef0123456789abcdef"
OTHER_ID = "fedcba9876543210fedcba9876543210"
EMAIL = "learner@example.com"
WHOAMI_IN = json.dumps({
    "loggedIn": True,
    "authType": "OAuth Token",
    "email": EMAIL,
    "accounts": [{"id": LAB_ID, "name": "LabEx Learning"}, {"id": OTHER_ID, "name": "Personal"}],
    "tokenPermissions": ["account:read", "workers_scripts:write", "offline_access"],
}, indent=2)


def test_identity_logged_in_with_two_accounts() -> None:
    identity = parse_whoami(WHOAMI_IN)
    assert identity.logged_in
    assert identity.public() == {"loggedIn": True, "authType": "OAuth Token",
                                 "accounts": [{"name": "LabEx Learning"}, {"name": "Personal"}]}
    assert identity.account_id_for("LabEx Learning") == LAB_ID
    assert identity.account_id_for("Personal") == OTHER_ID
    for shown in (json.dumps(identity.public()), repr(identity), str(identity), repr(identity.accounts)):
        assert LAB_ID not in shown and OTHER_ID not in shown and EMAIL not in shown


def test_unknown_account_lists_the_names_it_saw() -> None:
    with pytest.raises(LabError) as caught:
        parse_whoami(WHOAMI_IN).account_id_for("LabEx")
    assert '"LabEx Learning"' in str(caught.value) and '"Personal"' in str(caught.value)
    assert LAB_ID not in str(caught.value)


def test_two_accounts_with_the_same_name_are_ambiguous() -> None:
    twins = json.dumps({"loggedIn": True, "authType": "OAuth Token",
                        "accounts": [{"id": LAB_ID, "name": "Lab"}, {"id": OTHER_ID, "name": "Lab"}]})
    with raises_key("cloud.two_accounts", LabError):
        parse_whoami(twins).account_id_for("Lab")


def test_a_single_account_is_used_whatever_its_name_and_an_email_in_a_name_is_never_shown(
        capsys: pytest.CaptureFixture[str]) -> None:
    fresh = parse_whoami(json.dumps({"loggedIn": True, "authType": "OAuth Token",
                                     "accounts": [{"id": LAB_ID, "name": f"{EMAIL}'s Account"}]}))
    assert fresh.public()["accounts"] == [{"name": "<your e-mail>'s Account"}]
    assert EMAIL not in repr(fresh) and EMAIL not in str(fresh)  # a cell that shows `identity` shows no e-mail
    assert choose_account(fresh, "LabEx Learning") == LAB_ID
    shown = capsys.readouterr().out
    assert "\"<your e-mail>'s Account\"" in shown and "account_name = \"LabEx Learning\"" in shown
    assert EMAIL not in shown and LAB_ID not in shown
    several = parse_whoami(json.dumps({"loggedIn": True, "authType": "OAuth Token", "accounts": [
        {"id": LAB_ID, "name": f"{EMAIL}'s Account"}, {"id": OTHER_ID, "name": "Team"}]}))
    with raises_key("cloud.no_account", LabError) as caught:
        several.account_id_for("LabEx Learning")
    assert EMAIL not in str(caught.value) and "<your e-mail>'s Account" in str(caught.value)
    none = parse_whoami(json.dumps({"loggedIn": True, "authType": "OAuth Token", "accounts": []}))
    with raises_key("cloud.no_accounts", LabError):
        none.account_id_for("LabEx Learning")


def test_identity_logged_out() -> None:
    identity = parse_whoami('\n{"loggedIn":false}\n')
    assert identity == Identity(logged_in=False)
    assert identity.public() == {"loggedIn": False, "authType": None, "accounts": []}
    with raises_key("cloud.not_logged_in", LabError):
        identity.account_id_for("LabEx Learning")


def test_whoami_without_json() -> None:
    with raises_key("cloud.whoami_no_json", LabError):
        parse_whoami("✘ [ERROR] something went wrong\n")
