from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.header import Header
    from ..models.mime_part import MimePart


T = TypeVar("T", bound="RecipientCopy")


@_attrs_define
class RecipientCopy:
    """
    Attributes:
        recipient (str):
        headers (list[Header]):
        parts (list[MimePart]):
        raw (str): the RFC 5322 message, as handed over (CRLF line ends)
    """

    recipient: str
    headers: list[Header]
    parts: list[MimePart]
    raw: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.header import Header  # noqa: PLC0415
        from ..models.mime_part import MimePart  # noqa: PLC0415

        recipient = self.recipient

        headers = []
        for headers_item_data in self.headers:
            headers_item = headers_item_data.to_dict()
            headers.append(headers_item)

        parts = []
        for parts_item_data in self.parts:
            parts_item = parts_item_data.to_dict()
            parts.append(parts_item)

        raw = self.raw

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "recipient": recipient,
                "headers": headers,
                "parts": parts,
                "raw": raw,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.header import Header  # noqa: PLC0415
        from ..models.mime_part import MimePart  # noqa: PLC0415

        d = dict(src_dict)
        recipient = d.pop("recipient")

        headers = []
        _headers = d.pop("headers")
        for headers_item_data in _headers:
            headers_item = Header.from_dict(headers_item_data)

            headers.append(headers_item)

        parts = []
        _parts = d.pop("parts")
        for parts_item_data in _parts:
            parts_item = MimePart.from_dict(parts_item_data)

            parts.append(parts_item)

        raw = d.pop("raw")

        recipient_copy = cls(
            recipient=recipient,
            headers=headers,
            parts=parts,
            raw=raw,
        )

        recipient_copy.additional_properties = d
        return recipient_copy

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
