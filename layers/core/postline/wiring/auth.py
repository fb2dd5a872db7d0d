"""The auth area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from postline.config import Console, SourceRate
from postline.wiring import accounts, keys, shared, subaccounts, usage
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.auth.cognito import CognitoConsoleUsers
    from postline.auth.console_jwt import JwksTokenVerifier
    from postline.auth.service import Authenticator
    from postline.auth.speculation import AdmittedPrincipals


@built_once()
def admitted_principals() -> AdmittedPrincipals:
    """The principal each API key was last admitted as, on this instance (auth/speculation.py)."""
    from postline.auth.speculation import AdmittedPrincipals

    return AdmittedPrincipals()


@built_once()
def console_verifier() -> JwksTokenVerifier:
    from postline.auth.console_jwt import JwksTokenVerifier

    console = settings(Console)
    return JwksTokenVerifier(console.jwks, audience=console.audience, issuer=console.issuer, jwks_url=console.jwks_url)


def authenticator() -> Authenticator:
    from postline.auth.service import Authenticator

    return Authenticator(
        keys=keys.key_store(),
        accounts=accounts.account_store(),
        subaccounts=subaccounts.subaccount_store(),
        counters=usage.counter_store(),
        hasher=keys.hasher(),
        clock=clock(),
        console=console_verifier(),
        meter=shared.meter(),
        ip_rate_limit=settings(SourceRate).per_minute,
        admitted=admitted_principals(),
    )


@built_once()
def console_users() -> CognitoConsoleUsers:
    from postline.auth.cognito import CognitoConsoleUsers

    return CognitoConsoleUsers(client("cognito-idp"))


def console_sign_in(event: dict[str, Any]) -> dict[str, Any]:
    """Cognito's pre token generation trigger: the ID token gets the console claims."""
    from postline.auth.console_claims import console_claims, with_claims

    name = console_users().client_name(event["userPoolId"], event["callerContext"]["clientId"])
    return with_claims(event, console_claims(event["request"]["userAttributes"], name))
