from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.skipped_member import SkippedMember


T = TypeVar("T", bound="BulkMembersResult")


@_attrs_define
class BulkMembersResult:
    """
    Attributes:
        created (int):
        updated (int):
        skipped (list[SkippedMember]):
        member_count (int): The list's member_count after the call.
    """

    created: int
    updated: int
    skipped: list[SkippedMember]
    member_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.skipped_member import SkippedMember  # noqa: PLC0415

        created = self.created

        updated = self.updated

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)

        member_count = self.member_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created": created,
                "updated": updated,
                "skipped": skipped,
                "member_count": member_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.skipped_member import SkippedMember  # noqa: PLC0415

        d = dict(src_dict)
        created = d.pop("created")

        updated = d.pop("updated")

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in _skipped:
            skipped_item = SkippedMember.from_dict(skipped_item_data)

            skipped.append(skipped_item)

        member_count = d.pop("member_count")

        bulk_members_result = cls(
            created=created,
            updated=updated,
            skipped=skipped,
            member_count=member_count,
        )

        bulk_members_result.additional_properties = d
        return bulk_members_result

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
