"""The learners the double plays: real accounts, not one ideal account named like the notebook's default.

The default is what most learners have, a fresh free account; the others are the cases round 4's cloud audit found
on real accounts. Each returns a new `User`; `user.account` is the account the lab should end up using.
"""

from __future__ import annotations

from collections.abc import Callable

from reservation_lab.cloudflare_double.state import Account, User

EMAIL = "learner@example.invalid"
LEARNING_ACCOUNT = "LabEx Learning"  # the seeds' account (their prerequisite lab created it)


def fresh_account() -> User:
    """One account named `<e-mail>'s Account` (Cloudflare's default name for a new sign-up), e-mail verified, with
    a workers.dev subdomain."""
    return User(email=EMAIL)


def several_accounts() -> User:
    """The seeds' `LabEx Learning` beside the learner's own account; the lab uses the learning one."""
    return User(email=EMAIL, accounts=[Account(name=LEARNING_ACCOUNT, subdomain="labex-learning"),
                                       Account(name=f"{EMAIL}'s Account", subdomain="lab-learner")])


def grant_without_learning_account() -> User:
    """Three accounts, but the login's consent screen covered only the learner's own and a team's: `LabEx Learning`
    is invisible to wrangler until the learner logs in again and ticks it (cloudflare-docs #29821, workers-sdk
    #12968)."""
    user = several_accounts()
    user.accounts.append(Account(name="Team Project", subdomain="team-project"))
    user.granted = {user.accounts[1].id, user.accounts[2].id}
    return user


def unverified_email() -> User:
    """A fresh account whose e-mail is not verified yet: the first upload answers 10034 (workers-sdk #11394)."""
    return User(email=EMAIL, email_verified=False)


def no_subdomain() -> User:
    """A fresh account that never chose a workers.dev subdomain."""
    user = fresh_account()
    user.account.subdomain = None
    return user


SCENARIOS: dict[str, Callable[[], User]] = {
    "fresh": fresh_account,
    "several-accounts": several_accounts,
    "grant-without-learning-account": grant_without_learning_account,
    "unverified-email": unverified_email,
    "no-subdomain": no_subdomain,
}
