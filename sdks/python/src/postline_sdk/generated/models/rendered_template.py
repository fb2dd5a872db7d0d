from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast


T = TypeVar("T", bound="RenderedTemplate")


@_attrs_define
class RenderedTemplate:
    """What a send with these vars would carry, without sending anything.

    Attributes:
        template_id (None | str): The saved template rendered; null for unsaved parts.
        version (int | None): Its version; null for unsaved parts.
        subject (None | str): Rendered; null when the template has no subject.
        html (None | str): Rendered, every value HTML-escaped; null when there is no html part.
        text_body (None | str):
        variables (list[str]): The variables the template reads, sorted.
        missing_variables (list[str]): Those it reads that vars does not give: they render empty, as in a send.
    """

    template_id: None | str
    version: int | None
    subject: None | str
    html: None | str
    text_body: None | str
    variables: list[str]
    missing_variables: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        template_id: None | str
        template_id = self.template_id

        version: int | None
        version = self.version

        subject: None | str
        subject = self.subject

        html: None | str
        html = self.html

        text_body: None | str
        text_body = self.text_body

        variables = self.variables

        missing_variables = self.missing_variables

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "template_id": template_id,
                "version": version,
                "subject": subject,
                "html": html,
                "text_body": text_body,
                "variables": variables,
                "missing_variables": missing_variables,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_template_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        template_id = _parse_template_id(d.pop("template_id"))

        def _parse_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version = _parse_version(d.pop("version"))

        def _parse_subject(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        subject = _parse_subject(d.pop("subject"))

        def _parse_html(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        html = _parse_html(d.pop("html"))

        def _parse_text_body(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        text_body = _parse_text_body(d.pop("text_body"))

        variables = cast(list[str], d.pop("variables"))

        missing_variables = cast(list[str], d.pop("missing_variables"))

        rendered_template = cls(
            template_id=template_id,
            version=version,
            subject=subject,
            html=html,
            text_body=text_body,
            variables=variables,
            missing_variables=missing_variables,
        )

        rendered_template.additional_properties = d
        return rendered_template

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
