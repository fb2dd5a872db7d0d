from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset


T = TypeVar("T", bound="Attachment")


@_attrs_define
class Attachment:
    """
    Attributes:
        filename (str):
        content (str): The file, base64-encoded.
        content_type (str | Unset):  Default: 'application/octet-stream'.
    """

    filename: str
    content: str
    content_type: str | Unset = "application/octet-stream"

    def to_dict(self) -> dict[str, Any]:
        filename = self.filename

        content = self.content

        content_type = self.content_type

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "filename": filename,
                "content": content,
            }
        )
        if content_type is not UNSET:
            field_dict["content_type"] = content_type

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        filename = d.pop("filename")

        content = d.pop("content")

        content_type = d.pop("content_type", UNSET)

        attachment = cls(
            filename=filename,
            content=content,
            content_type=content_type,
        )

        return attachment
