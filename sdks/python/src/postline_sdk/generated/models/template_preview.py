from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.template_preview_vars import TemplatePreviewVars
    from ..models.template_preview_vars_schema_type_0 import TemplatePreviewVarsSchemaType0


T = TypeVar("T", bound="TemplatePreview")


@_attrs_define
class TemplatePreview:
    """POST /v3/templates/render: a saved template (template_id) or unsaved parts, with vars.

    Attributes:
        template_id (None | str | Unset): A saved template; or give the parts.
        subject (None | str | Unset): Unsaved parts, as an editor holds them.
        html (None | str | Unset):
        text_body (None | str | Unset):
        vars_schema (None | TemplatePreviewVarsSchemaType0 | Unset): Checked against vars, as a send would.
        vars_ (TemplatePreviewVars | Unset): The variables, as a send's `vars`.
    """

    template_id: None | str | Unset = UNSET
    subject: None | str | Unset = UNSET
    html: None | str | Unset = UNSET
    text_body: None | str | Unset = UNSET
    vars_schema: None | TemplatePreviewVarsSchemaType0 | Unset = UNSET
    vars_: TemplatePreviewVars | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.template_preview_vars import TemplatePreviewVars  # noqa: PLC0415
        from ..models.template_preview_vars_schema_type_0 import TemplatePreviewVarsSchemaType0  # noqa: PLC0415

        template_id: None | str | Unset
        if isinstance(self.template_id, Unset):
            template_id = UNSET
        else:
            template_id = self.template_id

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
        elif isinstance(self.vars_schema, TemplatePreviewVarsSchemaType0):
            vars_schema = self.vars_schema.to_dict()
        else:
            vars_schema = self.vars_schema

        vars_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.vars_, Unset):
            vars_ = self.vars_.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if template_id is not UNSET:
            field_dict["template_id"] = template_id
        if subject is not UNSET:
            field_dict["subject"] = subject
        if html is not UNSET:
            field_dict["html"] = html
        if text_body is not UNSET:
            field_dict["text_body"] = text_body
        if vars_schema is not UNSET:
            field_dict["vars_schema"] = vars_schema
        if vars_ is not UNSET:
            field_dict["vars"] = vars_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_preview_vars import TemplatePreviewVars  # noqa: PLC0415
        from ..models.template_preview_vars_schema_type_0 import TemplatePreviewVarsSchemaType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_template_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        template_id = _parse_template_id(d.pop("template_id", UNSET))

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

        def _parse_vars_schema(data: object) -> None | TemplatePreviewVarsSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vars_schema_type_0 = TemplatePreviewVarsSchemaType0.from_dict(data)

                return vars_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplatePreviewVarsSchemaType0 | Unset, data)

        vars_schema = _parse_vars_schema(d.pop("vars_schema", UNSET))

        _vars_ = d.pop("vars", UNSET)
        vars_: TemplatePreviewVars | Unset
        if isinstance(_vars_, Unset):
            vars_ = UNSET
        else:
            vars_ = TemplatePreviewVars.from_dict(_vars_)

        template_preview = cls(
            template_id=template_id,
            subject=subject,
            html=html,
            text_body=text_body,
            vars_schema=vars_schema,
            vars_=vars_,
        )

        return template_preview
