"""The templates area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Resources
from postline.wiring import shared
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.templates.service import TemplateService
    from postline.templates.store import DynamoTemplateStore


@built_once()
def template_store() -> DynamoTemplateStore:
    from postline.templates.store import DynamoTemplateStore

    return DynamoTemplateStore(client("dynamodb"), settings(Resources).table)


def template_service() -> TemplateService:
    from postline.templates.service import TemplateService

    return TemplateService(templates=template_store(), ids=shared.ids(), clock=clock())
