"""The cloud console's sign-in: Cognito's pre token generation trigger writes the claims the API
reads from a console JWT (auth/console_jwt.py, AuthService._from_console_token).

A console user is a Cognito user of the deployment's pool, invited by the operator
(`postline console invite`) into one account: the pool keeps it in `custom:account_id`, and the
scope the person acts with in `custom:scope` (full_access unless set). The test/live switch is the
app client the person signs in through: the pool has one client per environment, named
`...-test` and `...-live`, and the hosted sign-in page keeps its session across both, so switching
is a redirect, not a second password. Every ID token then carries `account_id`, `env` and `scope`,
exactly what a console JWT from any other issuer carries.
"""

from __future__ import annotations

from typing import Any

from postline.keys.access import Environment, Scope

ACCOUNT_ATTRIBUTE = "custom:account_id"
SCOPE_ATTRIBUTE = "custom:scope"


class NotAConsoleUser(Exception):
    """The user belongs to no account, or the client is not one of the console's: Cognito then
    refuses the sign-in with this message."""


def environment_of(client_name: str) -> Environment:
    for env in Environment:
        if client_name.endswith(f"-{env.value}"):
            return env
    raise NotAConsoleUser(f"the app client {client_name!r} is not a console client (…-test or …-live)")


def console_claims(user_attributes: dict[str, str], client_name: str) -> dict[str, str]:
    account_id = (user_attributes.get(ACCOUNT_ATTRIBUTE) or "").strip()
    if not account_id:
        raise NotAConsoleUser("this user is not a member of any account: ask the operator for an invitation")
    try:
        scope = Scope(user_attributes.get(SCOPE_ATTRIBUTE) or Scope.FULL_ACCESS.value)
    except ValueError as error:
        raise NotAConsoleUser(
            f"this user's scope {user_attributes.get(SCOPE_ATTRIBUTE)!r} is not a key scope"
        ) from error
    return {"account_id": account_id, "env": environment_of(client_name).value, "scope": scope.value}


def with_claims(event: dict[str, Any], claims: dict[str, str]) -> dict[str, Any]:
    """The trigger's answer: the event, its response adding `claims` to the ID token."""
    response = dict(event.get("response") or {})
    response["claimsOverrideDetails"] = {"claimsToAddOrOverride": claims}
    return {**event, "response": response}
