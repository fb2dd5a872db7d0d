"""The console's Cognito pool on moto: the operator invites a person into an account, and the
pre token generation trigger turns their sign-in through either app client into console claims."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from postline import cli
from postline.accounts.domain import Plan
from postline.auth.console_claims import NotAConsoleUser
from postline.shared.errors import NotFound
from postline.wiring import auth, operator
from tests.aws_stack import InProcessStack


@pytest.fixture
def pool(stack: InProcessStack) -> dict[str, str]:
    cognito = stack.client("cognito-idp")
    pool_id = cognito.create_user_pool(
        PoolName="console",
        UsernameAttributes=["email"],
        Schema=[
            {"Name": "account_id", "AttributeDataType": "String", "Mutable": True},
            {"Name": "scope", "AttributeDataType": "String", "Mutable": True},
        ],
    )["UserPool"]["Id"]
    clients = {
        env: cognito.create_user_pool_client(UserPoolId=pool_id, ClientName=f"postline-console-{env}")[
            "UserPoolClient"
        ]["ClientId"]
        for env in ("test", "live")
    }
    return {"pool_id": pool_id, **clients}


def invite(monkeypatch: pytest.MonkeyPatch, pool_id: str, *argv: str) -> None:
    monkeypatch.setenv("CONSOLE_USER_POOL_ID", pool_id)  # the parser's default, from the stack's output
    args: argparse.Namespace = cli._parser().parse_args(["console", "invite", *argv])
    cli.run(args)


def sign_in(stack: InProcessStack, pool: dict[str, str], email: str, env: str) -> dict[str, Any]:
    """The trigger's event as Cognito sends it for a hosted sign-in through `env`'s client."""
    user = stack.client("cognito-idp").admin_get_user(UserPoolId=pool["pool_id"], Username=email)
    attributes = {attribute["Name"]: attribute["Value"] for attribute in user["UserAttributes"]}
    event = {
        "version": "1",
        "triggerSource": "TokenGeneration_HostedAuth",
        "region": "us-east-1",
        "userPoolId": pool["pool_id"],
        "userName": user["Username"],
        "callerContext": {"awsSdkVersion": "aws-sdk-unknown", "clientId": pool[env]},
        "request": {"userAttributes": attributes, "groupConfiguration": {}},
        "response": {"claimsOverrideDetails": None},
    }
    answered: dict[str, Any] = auth.console_sign_in(event)
    claims: dict[str, Any] = answered["response"]["claimsOverrideDetails"]["claimsToAddOrOverride"]
    return claims


def test_an_invited_person_signs_in_to_their_account_in_either_environment(
    stack: InProcessStack, pool: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    account = operator.operator_service().create_account(name="console", plan=Plan.PROFESSIONAL)
    invite(monkeypatch, pool["pool_id"], account.id, "ada@example.com", "--scope", "read_only")
    assert '"status": "FORCE_CHANGE_PASSWORD"' in capsys.readouterr().out
    assert sign_in(stack, pool, "ada@example.com", "test") == {
        "account_id": account.id,
        "env": "test",
        "scope": "read_only",
    }
    assert sign_in(stack, pool, "ada@example.com", "live")["env"] == "live"


def test_nobody_is_invited_into_an_account_that_does_not_exist_and_strangers_get_no_claims(
    stack: InProcessStack, pool: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(NotFound):
        invite(monkeypatch, pool["pool_id"], "acc_missing", "eve@example.com")
    cognito = stack.client("cognito-idp")
    cognito.admin_create_user(UserPoolId=pool["pool_id"], Username="mallory@example.com")  # made by hand, no account
    with pytest.raises(NotAConsoleUser):
        sign_in(stack, pool, "mallory@example.com", "live")
