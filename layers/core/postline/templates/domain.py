"""Templates: {{variables}} in subject and html (rendered by rendering.py); vars checked by vars_schema."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import jsonschema
from pydantic import StringConstraints

from postline.shared.base import Model
from postline.shared.errors import ApiError, ValidationFailed


class TemplateNotFound(ApiError):
    status, code = 400, "template_not_found"


class Template(Model):
    """A template as the /v3/templates routes return it."""

    id: str
    name: str
    description: str | None = None
    subject: str | None = None
    html: str | None = None
    text_body: str | None = None
    vars_schema: dict[str, Any] | None = None
    version: int = 1
    active: bool = True
    category: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


def check_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    if schema is not None:
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            raise ValueError(f"vars_schema is not a valid JSON Schema: {error.message}") from error
    return schema


TemplateText = Annotated[str, StringConstraints(max_length=512_000)]


def check_vars(template: Template, variables: dict[str, Any]) -> None:
    if template.vars_schema is None:
        return
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(template.vars_schema).iter_errors(variables)
    )
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        raise ValidationFailed(
            f"vars{'/' + where if where else ''}: {error.message} (template {template.id} vars_schema)"
        )
