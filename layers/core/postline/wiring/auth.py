"""The auth area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Console, SourceRate
from postline.wiring import accounts, keys, shared, subaccounts, usage
from postline.wiring.registry import built_once, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.auth.console_jwt import JwksTokenVerifier
    from postline.auth.service import Authenticator


@built_once()
def console_verifier() -> JwksTokenVerifier:
    from postline.auth.console_jwt import JwksTokenVerifier

    console = settings(Console)
    return JwksTokenVerifier(console.jwks, audience=console.audience, issuer=console.issuer)


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
    )
