"""The keys area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import KeyPepper, Resources
from postline.wiring import shared
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.keys.hasher import PepperedHasher
    from postline.keys.service import KeyService
    from postline.keys.store import DynamoKeyStore


@built_once()
def key_store() -> DynamoKeyStore:
    from postline.keys.store import DynamoKeyStore

    return DynamoKeyStore(client("dynamodb"), settings(Resources).table)


@built_once()
def hasher() -> PepperedHasher:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    from postline.keys.hasher import PepperedHasher

    provider = SecretsProvider(boto3_client=client("secretsmanager"))
    secret_id = settings(KeyPepper).secret_id
    # Cached for five minutes per container, so a key check costs no Secrets Manager call.
    return PepperedHasher(lambda: str(provider.get(secret_id, max_age=300)))


def key_service() -> KeyService:
    from postline.keys.service import KeyService

    return KeyService(keys=key_store(), hasher=hasher(), ids=shared.ids(), clock=clock())
