from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.template_update_vars_schema_type_0 import TemplateUpdateVarsSchemaType0


T = TypeVar("T", bound="TemplateUpdate")


@_attrs_define
class TemplateUpdate:
    """PATCH/PUT semantics: only the fields present change; version goes up by one.

    Attributes:
        name (None | str | Unset):
        description (None | str | Unset):
        subject (None | str | Unset): Rendering one message (subject, html and text together) takes at most 1 s and
            200,000 steps (loop iterations, calls, filters, operators), builds no value and no part longer than 1,000,000
            characters, writes at most 2,000,000 characters (captured blocks and macros included), nests calls at most 50
            deep and keeps numbers within 4,096 bits; a batch renders all its recipients within 10 s. A template breaking a
            limit without vars is refused at save, one breaking it with a send's vars at send (400 validation_error; a batch
            rejects that recipient only).
        html (None | str | Unset): Rendering one message (subject, html and text together) takes at most 1 s and 200,000
            steps (loop iterations, calls, filters, operators), builds no value and no part longer than 1,000,000
            characters, writes at most 2,000,000 characters (captured blocks and macros included), nests calls at most 50
            deep and keeps numbers within 4,096 bits; a batch renders all its recipients within 10 s. A template breaking a
            limit without vars is refused at save, one breaking it with a send's vars at send (400 validation_error; a batch
            rejects that recipient only).
        text_body (None | str | Unset): Rendering one message (subject, html and text together) takes at most 1 s and
            200,000 steps (loop iterations, calls, filters, operators), builds no value and no part longer than 1,000,000
            characters, writes at most 2,000,000 characters (captured blocks and macros included), nests calls at most 50
            deep and keeps numbers within 4,096 bits; a batch renders all its recipients within 10 s. A template breaking a
            limit without vars is refused at save, one breaking it with a send's vars at send (400 validation_error; a batch
            rejects that recipient only).
        vars_schema (None | TemplateUpdateVarsSchemaType0 | Unset):
        active (bool | None | Unset):
        category (None | str | Unset):
    """

    name: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    subject: None | str | Unset = UNSET
    html: None | str | Unset = UNSET
    text_body: None | str | Unset = UNSET
    vars_schema: None | TemplateUpdateVarsSchemaType0 | Unset = UNSET
    active: bool | None | Unset = UNSET
    category: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.template_update_vars_schema_type_0 import TemplateUpdateVarsSchemaType0  # noqa: PLC0415

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        html: None | str | Unset
        if isinstance(self.html, Unset):
            html = UNSET
        else:
            html = self.html

        text_body: None | str | Unset
        if isinstance(self.text_body, Unset):
            text_body = UNSET
        else:
            text_body = self.text_body

        vars_schema: dict[str, Any] | None | Unset
        if isinstance(self.vars_schema, Unset):
            vars_schema = UNSET
        elif isinstance(self.vars_schema, TemplateUpdateVarsSchemaType0):
            vars_schema = self.vars_schema.to_dict()
        else:
            vars_schema = self.vars_schema

        active: bool | None | Unset
        if isinstance(self.active, Unset):
            active = UNSET
        else:
            active = self.active

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if description is not UNSET:
            field_dict["description"] = description
        if subject is not UNSET:
            field_dict["subject"] = subject
        if html is not UNSET:
            field_dict["html"] = html
        if text_body is not UNSET:
            field_dict["text_body"] = text_body
        if vars_schema is not UNSET:
            field_dict["vars_schema"] = vars_schema
        if active is not UNSET:
            field_dict["active"] = active
        if category is not UNSET:
            field_dict["category"] = category

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_update_vars_schema_type_0 import TemplateUpdateVarsSchemaType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        def _parse_html(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        html = _parse_html(d.pop("html", UNSET))

        def _parse_text_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text_body = _parse_text_body(d.pop("text_body", UNSET))

        def _parse_vars_schema(data: object) -> None | TemplateUpdateVarsSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vars_schema_type_0 = TemplateUpdateVarsSchemaType0.from_dict(data)

                return vars_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateUpdateVarsSchemaType0 | Unset, data)

        vars_schema = _parse_vars_schema(d.pop("vars_schema", UNSET))

        def _parse_active(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        active = _parse_active(d.pop("active", UNSET))

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        template_update = cls(
            name=name,
            description=description,
            subject=subject,
            html=html,
            text_body=text_body,
            vars_schema=vars_schema,
            active=active,
            category=category,
        )

        return template_update
