"""The signing_keys area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ContentKey, Resources
from postline.wiring import shared
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.signing_keys.service import SigningKeyService
    from postline.signing_keys.store import DynamoSigningKeys


@built_once()
def signing_keys() -> DynamoSigningKeys:
    from postline.signing_keys.store import DynamoSigningKeys

    return DynamoSigningKeys(client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id)


def signing_key_service() -> SigningKeyService:
    from postline.signing_keys.service import SigningKeyService

    return SigningKeyService(signing_keys(), shared.ids(), clock())
