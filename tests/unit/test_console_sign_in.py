"""The cloud console's sign-in: the claims Cognito's trigger writes (the key set fetched over HTTP:
tests/adapters/test_console_jwks.py)."""

from __future__ import annotations

import pytest

from postline.auth.console_claims import NotAConsoleUser, console_claims, with_claims

MEMBER = {"email": "ada@example.com", "custom:account_id": "acc_1"}


def test_the_app_client_names_the_environment_and_the_attributes_the_account_and_scope() -> None:
    assert console_claims(MEMBER, "postline-console-test") == {
        "account_id": "acc_1",
        "env": "test",
        "scope": "full_access",
    }
    reader = {**MEMBER, "custom:scope": "read_only"}
    assert console_claims(reader, "postline-console-live") == {
        "account_id": "acc_1",
        "env": "live",
        "scope": "read_only",
    }


@pytest.mark.parametrize(
    ("attributes", "client"),
    [
        ({"email": "x@example.com"}, "postline-console-live"),  # invited into no account
        ({**MEMBER, "custom:scope": "root"}, "postline-console-live"),  # not a key scope
        (MEMBER, "postline-mobile"),  # another app's client of the same pool
    ],
    ids=["no-account", "unknown-scope", "foreign-client"],
)
def test_a_sign_in_that_names_no_account_scope_or_environment_is_refused(
    attributes: dict[str, str], client: str
) -> None:
    with pytest.raises(NotAConsoleUser):
        console_claims(attributes, client)


def test_the_trigger_answers_the_event_with_the_claims_added() -> None:
    event = {"version": "1", "triggerSource": "TokenGeneration_HostedAuth", "request": {}, "response": {}}
    answered = with_claims(event, {"account_id": "acc_1"})
    assert answered["response"] == {"claimsOverrideDetails": {"claimsToAddOrOverride": {"account_id": "acc_1"}}}
    assert answered["triggerSource"] == "TokenGeneration_HostedAuth" and event["response"] == {}
