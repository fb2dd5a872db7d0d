from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast
import datetime

if TYPE_CHECKING:
    from ..models.presigned_post_fields import PresignedPostFields


T = TypeVar("T", bound="PresignedPost")


@_attrs_define
class PresignedPost:
    """A presigned S3 POST: a multipart/form-data POST of `fields`, then the file as field `file`.

    Attributes:
        url (str):
        fields (PresignedPostFields):
        max_bytes (int):
        expires_at (datetime.datetime):
        method (Literal['POST'] | Unset):  Default: 'POST'.
    """

    url: str
    fields: PresignedPostFields
    max_bytes: int
    expires_at: datetime.datetime
    method: Literal["POST"] | Unset = "POST"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.presigned_post_fields import PresignedPostFields  # noqa: PLC0415

        url = self.url

        fields = self.fields.to_dict()

        max_bytes = self.max_bytes

        expires_at = self.expires_at.isoformat()

        method = self.method

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "url": url,
                "fields": fields,
                "max_bytes": max_bytes,
                "expires_at": expires_at,
            }
        )
        if method is not UNSET:
            field_dict["method"] = method

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.presigned_post_fields import PresignedPostFields  # noqa: PLC0415

        d = dict(src_dict)
        url = d.pop("url")

        fields = PresignedPostFields.from_dict(d.pop("fields"))

        max_bytes = d.pop("max_bytes")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        method = cast(Literal["POST"] | Unset, d.pop("method", UNSET))
        if method != "POST" and not isinstance(method, Unset):
            raise ValueError(f"method must match const 'POST', got '{method}'")

        presigned_post = cls(
            url=url,
            fields=fields,
            max_bytes=max_bytes,
            expires_at=expires_at,
            method=method,
        )

        presigned_post.additional_properties = d
        return presigned_post

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
