"""/v3/templates: what the create and update routes take."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, StringConstraints, field_validator, model_validator

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


class TemplatePreview(Model):
    """POST /v3/templates/render: a saved template (template_id) or unsaved parts, with vars."""

    model_config = ConfigDict(extra="forbid")

    template_id: str | None = Field(default=None, max_length=64, description="A saved template; or give the parts.")
    subject: Subject | None = Field(default=None, description="Unsaved parts, as an editor holds them.")
    html: TemplateText | None = None
    text_body: TemplateText | None = None
    vars_schema: dict[str, Any] | None = Field(default=None, description="Checked against vars, as a send would.")
    vars: dict[str, Any] = Field(default_factory=dict, description="The variables, as a send's `vars`.")

    @field_validator("vars_schema")
    @classmethod
    def _schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_schema(value)

    @field_validator("subject", "html", "text_body")
    @classmethod
    def _syntax(cls, value: str | None) -> str | None:
        return check_syntax(value)

    @model_validator(mode="after")
    def _one_source(self) -> TemplatePreview:
        parts = (self.subject, self.html, self.text_body, self.vars_schema)
        if self.template_id is not None and any(part is not None for part in parts):
            raise ValueError("give template_id or the template's parts, not both")
        if self.template_id is None and all(part is None for part in parts[:3]):
            raise ValueError("give template_id, or at least one of subject, html and text_body")
        return self


class RenderedTemplate(Model):
    """What a send with these vars would carry, without sending anything."""

    template_id: str | None = Field(description="The saved template rendered; null for unsaved parts.")
    version: int | None = Field(description="Its version; null for unsaved parts.")
    subject: str | None = Field(description="Rendered; null when the template has no subject.")
    html: str | None = Field(description="Rendered, every value HTML-escaped; null when there is no html part.")
    text_body: str | None
    variables: list[str] = Field(description="The variables the template reads, sorted.")
    missing_variables: list[str] = Field(
        description="Those it reads that vars does not give: they render empty, as in a send."
    )
