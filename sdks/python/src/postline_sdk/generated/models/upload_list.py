from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.upload_out import UploadOut


T = TypeVar("T", bound="UploadList")


@_attrs_define
class UploadList:
    """
    Attributes:
        items (list[UploadOut]):
        used_bytes (int):
        quota_bytes (int):
    """

    items: list[UploadOut]
    used_bytes: int
    quota_bytes: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.upload_out import UploadOut  # noqa: PLC0415

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        used_bytes = self.used_bytes

        quota_bytes = self.quota_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "items": items,
                "used_bytes": used_bytes,
                "quota_bytes": quota_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.upload_out import UploadOut  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = UploadOut.from_dict(items_item_data)

            items.append(items_item)

        used_bytes = d.pop("used_bytes")

        quota_bytes = d.pop("quota_bytes")

        upload_list = cls(
            items=items,
            used_bytes=used_bytes,
            quota_bytes=quota_bytes,
        )

        upload_list.additional_properties = d
        return upload_list

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
