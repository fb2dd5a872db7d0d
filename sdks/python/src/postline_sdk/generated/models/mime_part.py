from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="MimePart")


@_attrs_define
class MimePart:
    """
    Attributes:
        content_type (str):
        size_bytes (int): decoded size
        charset (None | str | Unset):
        disposition (None | str | Unset): attachment or inline; null for a body part
        filename (None | str | Unset):
        content (None | str | Unset): the decoded text of a text body part; null otherwise
    """

    content_type: str
    size_bytes: int
    charset: None | str | Unset = UNSET
    disposition: None | str | Unset = UNSET
    filename: None | str | Unset = UNSET
    content: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content_type = self.content_type

        size_bytes = self.size_bytes

        charset: None | str | Unset
        if isinstance(self.charset, Unset):
            charset = UNSET
        else:
            charset = self.charset

        disposition: None | str | Unset
        if isinstance(self.disposition, Unset):
            disposition = UNSET
        else:
            disposition = self.disposition

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        content: None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        else:
            content = self.content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content_type": content_type,
                "size_bytes": size_bytes,
            }
        )
        if charset is not UNSET:
            field_dict["charset"] = charset
        if disposition is not UNSET:
            field_dict["disposition"] = disposition
        if filename is not UNSET:
            field_dict["filename"] = filename
        if content is not UNSET:
            field_dict["content"] = content

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content_type = d.pop("content_type")

        size_bytes = d.pop("size_bytes")

        def _parse_charset(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        charset = _parse_charset(d.pop("charset", UNSET))

        def _parse_disposition(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        disposition = _parse_disposition(d.pop("disposition", UNSET))

        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        filename = _parse_filename(d.pop("filename", UNSET))

        def _parse_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        mime_part = cls(
            content_type=content_type,
            size_bytes=size_bytes,
            charset=charset,
            disposition=disposition,
            filename=filename,
            content=content,
        )

        mime_part.additional_properties = d
        return mime_part

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
