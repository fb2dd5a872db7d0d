"""What GET /v3/messages/{id}/content answers (POST /v3/messages/check answers content_checks' ContentCheck)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from postline.content_checks.domain import ContentCheck
from postline.shared.base import Model


class CopySource(StrEnum):
    KEPT = "kept"  # a test-mode message: the very copy the pipeline built and handed to the simulator
    REBUILT = "rebuilt"  # a live message: built again from its sealed body, as the dispatcher builds it


class Header(Model):
    name: str
    value: str


class MimePart(Model):
    content_type: str
    charset: str | None = None
    disposition: str | None = Field(default=None, description="attachment or inline; null for a body part")
    filename: str | None = None
    size_bytes: int = Field(description="decoded size")
    content: str | None = Field(default=None, description="the decoded text of a text body part; null otherwise")


class RecipientCopy(Model):
    recipient: str
    headers: list[Header]
    parts: list[MimePart]
    raw: str = Field(description="the RFC 5322 message, as handed over (CRLF line ends)")


class MessageContent(Model):
    id: str
    test: bool
    source: CopySource
    check: ContentCheck | None = Field(description="the content check of a test-mode message; null for a live one")
    recipients: list[RecipientCopy]
