"""The one place where clients, stores and services are built. Lazily: nothing runs at import.

Handlers call these accessors; tests and the embedded runtime replace pieces with `override`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import boto3
from botocore.config import Config

from postline.adapters.clock import SystemClock
from postline.adapters.console_jwt import JwksTokenVerifier
from postline.adapters.counters import DynamoCounterStore
from postline.adapters.resources import ResourceStore
from postline.adapters.secrets import PepperedHasher
from postline.config import Settings
from postline.ids import RandomIds
from postline.services.accounts import OperatorService
from postline.services.audit import AuditService
from postline.services.auth import Authenticator
from postline.services.keys import KeyService
from postline.services.ports import Clock
from postline.services.usage import UsageService

_BOTO_CONFIG = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=10)
_clock: Clock = SystemClock()


def set_clock(clock: Clock) -> None:
    """The embedded runtime installs its movable clock here."""
    global _clock  # the single process-wide clock is the point
    _clock = clock


def clock() -> Clock:
    return _clock


def reset() -> None:
    """Forget every built client and service (settings changed, e.g. a test's own tables)."""
    for accessor in (settings, client, resource_store, counter_store, hasher, ids, console_verifier):
        accessor.cache_clear()


@cache
def settings() -> Settings:
    return Settings.from_env()


@cache
def client(service: str) -> Any:
    # AWS_ENDPOINT_URL (moto, LocalStack) is honoured by boto3 itself; nothing here changes per target.
    return boto3.session.Session().client(service, config=_BOTO_CONFIG)


@cache
def resource_store() -> ResourceStore:
    return ResourceStore(client("dynamodb"), settings().resources_table)


@cache
def counter_store() -> DynamoCounterStore:
    return DynamoCounterStore(client("dynamodb"), settings().counters_table)


@cache
def hasher() -> PepperedHasher:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    provider = SecretsProvider(boto3_client=client("secretsmanager"))
    secret_id = settings().key_hash_secret_id
    # Cached for five minutes per container, so a key check costs no Secrets Manager call.
    return PepperedHasher(lambda: str(provider.get(secret_id, max_age=300)))


@cache
def ids() -> RandomIds:
    return RandomIds()


@cache
def console_verifier() -> JwksTokenVerifier:
    config = settings()
    return JwksTokenVerifier(
        config.console_jwks, audience=config.console_jwt_audience, issuer=config.console_jwt_issuer
    )


def authenticator() -> Authenticator:
    store = resource_store()
    return Authenticator(
        keys=store,
        accounts=store,
        counters=counter_store(),
        hasher=hasher(),
        clock=_clock,
        console=console_verifier(),
    )


def key_service() -> KeyService:
    return KeyService(keys=resource_store(), hasher=hasher(), ids=ids(), clock=_clock)


def audit_service() -> AuditService:
    return AuditService(audit=resource_store())


def usage_service() -> UsageService:
    return UsageService(counters=counter_store(), clock=_clock)


def operator_service() -> OperatorService:
    store = resource_store()
    return OperatorService(accounts=store, keys=store, key_service=key_service(), ids=ids(), clock=_clock)
