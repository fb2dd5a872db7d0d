"""/v3/templates: what the create and update routes take."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, StringConstraints, field_validator

from postline.shared.base import Model
from postline.shared.message_fields import Subject
from postline.templates.domain import TemplateText, check_schema
from postline.templates.rendering import LIMITS, check_syntax


class TemplateFields(Model):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)] | None = None
    description: Annotated[str, StringConstraints(max_length=1_000)] | None = None
    subject: Subject | None = Field(default=None, description=LIMITS)
    html: TemplateText | None = Field(default=None, description=LIMITS)
    text_body: TemplateText | None = Field(default=None, description=LIMITS)
    vars_schema: dict[str, Any] | None = None
    active: bool | None = None
    category: Annotated[str, StringConstraints(max_length=100)] | None = None

    @field_validator("vars_schema")
    @classmethod
    def _schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_schema(value)

    @field_validator("subject", "html", "text_body")
    @classmethod
    def _syntax(cls, value: str | None) -> str | None:
        return check_syntax(value)


class TemplateCreate(TemplateFields):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)] = Field(
        description="Required."
    )


class TemplateUpdate(TemplateFields):
    """PATCH/PUT semantics: only the fields present change; version goes up by one."""
