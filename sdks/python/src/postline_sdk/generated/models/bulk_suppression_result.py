from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.skipped_entry import SkippedEntry


T = TypeVar("T", bound="BulkSuppressionResult")


@_attrs_define
class BulkSuppressionResult:
    """
    Attributes:
        added (int): Entries on the list after the call, including those already there.
        skipped (list[SkippedEntry]):
    """

    added: int
    skipped: list[SkippedEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.skipped_entry import SkippedEntry  # noqa: PLC0415

        added = self.added

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "added": added,
                "skipped": skipped,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.skipped_entry import SkippedEntry  # noqa: PLC0415

        d = dict(src_dict)
        added = d.pop("added")

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in _skipped:
            skipped_item = SkippedEntry.from_dict(skipped_item_data)

            skipped.append(skipped_item)

        bulk_suppression_result = cls(
            added=added,
            skipped=skipped,
        )

        bulk_suppression_result.additional_properties = d
        return bulk_suppression_result

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
