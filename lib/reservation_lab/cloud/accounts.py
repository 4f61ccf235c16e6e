"""Step 1's account: who `wrangler whoami --json` says is logged in, and which account the lab uses.

A fresh free account is named `<e-mail>'s Account`, so every name the notebook shows has e-mails hidden; IDs stay
in variables. With one account the lab uses it (and says so); with several, the one named `account_name`. An account
the login was not granted (Cloudflare's consent page lets a learner leave accounts out) is invisible here: the error
says to log out and tick it. Nothing here prints an account ID or an e-mail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reservation_lab.cloud.api import first_json_object
from reservation_lab.errors import LabError
from reservation_lab.i18n import REFERENCE, message, quoted
from reservation_lab.runtime.wrangler import STDOUT, Echo, echo_stream

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


@dataclass(frozen=True)
class Account:
    """An account wrangler can use; the ID is kept out of repr."""

    name: str
    id: str = field(repr=False)


@dataclass(frozen=True, repr=False)
class Identity:
    """`wrangler whoami --json` reduced to what the lab needs (no e-mail is kept); `language`: the one its account
    names are shown in (an e-mail in a name becomes that language's placeholder)."""

    logged_in: bool
    auth_type: str | None = None
    accounts: tuple[Account, ...] = ()
    language: str = REFERENCE

    def __repr__(self) -> str:
        shown = [shown_name(name, self.language) for name in self.names()]  # a cell showing `identity`: no e-mail
        return f"Identity(logged_in={self.logged_in}, auth_type={self.auth_type!r}, accounts={shown})"

    def names(self) -> list[str]:
        return [account.name for account in self.accounts]

    def public(self) -> dict[str, Any]:
        """The safe fields: loggedIn, authType and the account names, an e-mail in a name hidden (a new account is
        called `<e-mail>'s Account`); no IDs."""
        return {"loggedIn": self.logged_in, "authType": self.auth_type,
                "accounts": [{"name": shown_name(name, self.language)} for name in self.names()]}

    def account_for(self, name: str) -> Account:
        """The account the lab uses: the one called `name`, or the only account the login sees (whatever its name).

        Raises, naming the accounts (e-mails hidden) and both ways out: another `account_name`, or a new login that
        is granted the learning account (Cloudflare's consent screen lets a learner leave an account out)."""
        if not self.logged_in:
            raise LabError("cloud.not_logged_in")
        if len(self.accounts) == 1:
            return self.accounts[0]
        named = [account for account in self.accounts if account.name == name]
        if len(named) == 1:
            return named[0]
        names = ", ".join(quoted(shown_name(n, self.language)) for n in self.names()) or "–"
        key = "cloud.two_accounts" if named else "cloud.no_account" if self.accounts else "cloud.no_accounts"
        raise LabError(key, name=quoted(shown_name(name, self.language)), names=names, n=len(self.accounts))

    def account_id_for(self, name: str) -> str:
        """The ID of `account_for(name)` (kept in a variable, never shown)."""
        return self.account_for(name).id


def parse_whoami(stdout: str, language: str = REFERENCE) -> Identity:
    """An Identity from `wrangler whoami --json` output (also `{"loggedIn": false}`), shown in `language`."""
    data = first_json_object(stdout)
    if data is None:
        raise LabError("cloud.whoami_no_json")
    accounts = tuple(
        Account(name=str(item.get("name", "")), id=str(item.get("id", "")))
        for item in data.get("accounts") or [] if isinstance(item, dict)
    )
    return Identity(logged_in=data.get("loggedIn") is True, auth_type=data.get("authType"), accounts=accounts,
                    language=language)


def shown_name(name: str, language: str | None = None) -> str:
    """An account name as the notebook shows it: an e-mail in it (a new account's `<e-mail>'s Account`) hidden."""
    return EMAIL.sub(message("cloud.your_email", language), name)


def choose_account(identity: Identity, name: str, echo: Echo = STDOUT) -> str:
    """The ID of the account the lab uses (Identity.account_for), after one line naming it (e-mail hidden) in the
    identity's language; with a single account whose name is not `name`, the line says that account is used and
    why."""
    language = identity.language
    account = identity.account_for(name)
    key = "cloud.using_account" if account.name == name else "cloud.using_only_account"
    stream = echo_stream(echo)
    if stream is not None:
        stream.write(message(key, language, account=quoted(shown_name(account.name, language)), name=quoted(name))
                     + "\n")
    return account.id
