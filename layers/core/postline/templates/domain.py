"""Templates: {{variables}} in subject and html, rendered in a sandbox; vars checked by vars_schema."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any

import jinja2
import jinja2.runtime
import jsonschema
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from pydantic import BaseModel, StringConstraints

from postline.shared.errors import ApiError, ValidationFailed


class TemplateNotFound(ApiError):
    status, code = 400, "template_not_found"


class Template(BaseModel):
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


def check_syntax(source: str | None) -> str | None:
    if source is not None:
        try:
            _environment(False).parse(source)
        except jinja2.TemplateSyntaxError as error:
            raise ValueError(f"template syntax error on line {error.lineno}: {error.message}") from error
    return source


TemplateText = Annotated[str, StringConstraints(max_length=512_000)]


MAX_REPEAT = 100_000  # the largest string or list a template may build with * (or **)


class _Sandbox(ImmutableSandboxedEnvironment):
    """Template authors are customers: no attribute games, no mutation of vars, and no `'x' * 10**9`."""

    intercepted_binops = frozenset(["*", "**"])

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int) and abs(right) > 64:
            raise SecurityError("exponent too large")
        if operator == "*" and any(isinstance(side, str | list | tuple) for side in (left, right)):
            count = right if isinstance(right, int) else left
            if isinstance(count, int) and count > MAX_REPEAT:
                raise SecurityError("repetition too large")
        return super().call_binop(context, operator, left, right)


@lru_cache(maxsize=2)
def _environment(autoescape: bool) -> ImmutableSandboxedEnvironment:
    return _Sandbox(autoescape=autoescape, undefined=jinja2.ChainableUndefined)


@lru_cache(maxsize=256)
def _compiled(source: str, autoescape: bool) -> jinja2.Template:
    return _environment(autoescape).from_string(source)


def render_text(source: str | None, variables: dict[str, Any], *, html: bool = False) -> str | None:
    """{{variables}} filled in; in html every value is HTML-escaped. Missing variables render empty."""
    if source is None:
        return None
    try:
        return _compiled(source, html).render(variables)
    except (jinja2.TemplateError, ArithmeticError, TypeError, ValueError, LookupError) as error:
        # A template failing on the sender's vars is the request's fault: 400, never 500.
        raise ValidationFailed(f"the template could not be rendered: {error}") from error


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
