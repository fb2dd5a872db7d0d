"""Templates: {{variables}} rendered in a sandbox, vars checked against vars_schema."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from postline.shared.errors import ValidationFailed
from postline.templates.domain import Template, check_vars
from postline.templates.models import TemplateCreate, TemplateUpdate
from postline.templates.rendering import render_text

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "user"],
    "properties": {
        "name": {"type": "string"},
        "user": {
            "type": "object",
            "required": ["email"],
            "properties": {"email": {"type": "string"}, "age": {"type": "integer"}},
        },
    },
}


def template(schema: dict[str, Any] | None = SCHEMA) -> Template:
    return Template(id="tpl_1", name="Welcome", vars_schema=schema)


# --- rendering ----------------------------------------------------------------------------------


def test_variables_are_filled_in() -> None:
    assert (
        render_text("Hi {{ name }}, order {{ order.id }}", {"name": "Ann", "order": {"id": 42}}) == "Hi Ann, order 42"
    )


def test_html_mode_escapes_values() -> None:
    assert render_text("<p>{{ name }}</p>", {"name": "<b>Ann</b> & co"}, html=True) == (
        "<p>&lt;b&gt;Ann&lt;/b&gt; &amp; co</p>"
    )


def test_text_mode_does_not_escape() -> None:
    assert render_text("{{ name }}", {"name": "<b>Ann</b> & co"}) == "<b>Ann</b> & co"


def test_the_template_markup_itself_is_not_escaped_in_html_mode() -> None:
    assert render_text('<a href="x">{{ n }}</a>', {"n": 1}, html=True) == '<a href="x">1</a>'


@pytest.mark.parametrize(
    "source", ["[{{ missing }}]", "[{{ user.name }}]", "[{{ user.name.first }}]", "[{{ a['b'] }}]"]
)
@pytest.mark.parametrize("html", [False, True])
def test_missing_variables_render_empty(source: str, html: bool) -> None:
    assert render_text(source, {}, html=html) == "[]"


def test_no_source_renders_none() -> None:
    assert render_text(None, {"name": "Ann"}) is None


def test_control_structures_work() -> None:
    source = "{% for item in items %}{{ item|upper }}{% if not loop.last %},{% endif %}{% endfor %}"
    assert render_text(source, {"items": ["a", "b"]}) == "A,B"


# --- the sandbox --------------------------------------------------------------------------------


def _render_or_refuse(source: str, variables: dict[str, Any] | None = None) -> str | None:
    """The rendering, or None when the sandbox refused it with a validation error."""
    try:
        return render_text(source, variables or {}, html=True)
    except ValidationFailed:
        return None


@pytest.mark.parametrize(
    "source",
    [
        "{{ ''.__class__ }}",
        "{{ ''.__class__.__mro__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ {}.__class__.__base__.__subclasses__() }}",
        "{{ name.__class__.__init__.__globals__ }}",
        "{{ name|attr('__class__') }}",
        "{{ cycler.__init__.__globals__ }}",
        "{{ lipsum.__globals__ }}",
        "{{ range.__self__ }}",
        "{{ config }}",
        "{{ request }}",
    ],
)
def test_the_sandbox_does_not_reach_object_internals(source: str) -> None:
    rendered = _render_or_refuse(source, {"name": "Ann"})
    # Either refused as a validation error or rendered as nothing: never a class, a module or globals.
    assert rendered in (None, "")


def test_calling_through_an_unsafe_attribute_is_a_validation_error() -> None:
    with pytest.raises(ValidationFailed, match="unsafe"):
        render_text("{{ ''.__class__.__mro__[1].__subclasses__() }}", {})


def test_the_sandbox_does_not_mutate_variables() -> None:
    items = [1]
    with pytest.raises(ValidationFailed):
        render_text("{{ items.append(2) }}", {"items": items})
    assert items == [1]


def test_calling_an_undefined_function_is_a_validation_error() -> None:
    with pytest.raises(ValidationFailed, match="could not be rendered"):
        render_text("{{ nothing_here() }}", {})


@pytest.mark.parametrize(
    "source", ["{{ total / count }}", "{{ '%d'|format(name) }}", "{{ range(1000000)|list|length }}"]
)
def test_a_template_failing_at_run_time_is_a_validation_error(source: str) -> None:
    with pytest.raises(ValidationFailed):
        render_text(source, {"total": 1, "count": 0, "name": "Ann"})


# --- vars_schema --------------------------------------------------------------------------------


def test_vars_matching_the_schema_pass() -> None:
    check_vars(template(), {"name": "Ann", "user": {"email": "ann@example.com", "age": 30}})


def test_without_a_schema_anything_passes() -> None:
    check_vars(template(None), {"anything": object()})


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"user": {"email": "e"}}, "vars: 'name' is a required property"),
        ({"name": 1, "user": {"email": "e"}}, "vars/name: 1 is not of type 'string'"),
        ({"name": "Ann", "user": {}}, "vars/user: 'email' is a required property"),
        ({"name": "Ann", "user": {"email": "e", "age": "old"}}, "vars/user/age: 'old' is not of type 'integer'"),
        ({"name": "Ann", "user": "ann@example.com"}, "vars/user: 'ann@example.com' is not of type 'object'"),
    ],
)
def test_vars_against_the_schema_fail_with_a_path(variables: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        check_vars(template(), variables)
    assert raised.value.message.startswith(message)
    assert "tpl_1" in raised.value.message
    assert raised.value.code == "validation_error"


# --- creating templates -------------------------------------------------------------------------


def test_a_template_needs_a_name() -> None:
    with pytest.raises(ValidationError, match="name"):
        TemplateCreate.model_validate({"html": "<p>hi</p>"})
    with pytest.raises(ValidationError):
        TemplateCreate.model_validate({"name": "   "})


def test_a_valid_template_is_accepted() -> None:
    created = TemplateCreate.model_validate(
        {"name": " Welcome ", "subject": "Hi {{ name }}", "html": "<p>{{ name }}</p>", "vars_schema": SCHEMA}
    )
    assert (created.name, created.vars_schema) == ("Welcome", SCHEMA)


@pytest.mark.parametrize(
    "schema", [{"type": "nope"}, {"type": "object", "required": "name"}, {"properties": {"a": {"minLength": -1}}}]
)
def test_an_invalid_vars_schema_is_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="vars_schema is not a valid JSON Schema"):
        TemplateCreate.model_validate({"name": "t", "vars_schema": schema})


@pytest.mark.parametrize("field", ["subject", "html", "text_body"])
@pytest.mark.parametrize("source", ["{{ unclosed", "{% if %}", "{% for x in %}{% endfor %}", "{% endif %}"])
def test_template_syntax_errors_are_refused(field: str, source: str) -> None:
    with pytest.raises(ValidationError, match="template syntax error on line 1"):
        TemplateCreate.model_validate({"name": "t", field: source})


def test_updates_check_syntax_and_schema_too() -> None:
    with pytest.raises(ValidationError, match="template syntax error"):
        TemplateUpdate.model_validate({"html": "{{ unclosed"})
    with pytest.raises(ValidationError, match="vars_schema"):
        TemplateUpdate.model_validate({"vars_schema": {"type": "nope"}})
    assert TemplateUpdate.model_validate({}).model_dump(exclude_unset=True) == {}


def test_unknown_template_fields_are_refused() -> None:
    with pytest.raises(ValidationError):
        TemplateCreate.model_validate({"name": "t", "body": "x"})
