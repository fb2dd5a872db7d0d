from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.suppression_type import SuppressionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.bulk_entry import BulkEntry


T = TypeVar("T", bound="BulkSuppressionRequest")


@_attrs_define
class BulkSuppressionRequest:
    """POST /v3/suppressions/bulk: up to 10,000 entries of one type.

    Attributes:
        type_ (SuppressionType):
        entries (list[BulkEntry]):
        override_unsubscribes (bool | Unset): Allowlist only: for every entry of the call. Default: False.
    """

    type_: SuppressionType
    entries: list[BulkEntry]
    override_unsubscribes: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        from ..models.bulk_entry import BulkEntry  # noqa: PLC0415

        type_ = self.type_.value

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        override_unsubscribes = self.override_unsubscribes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "entries": entries,
            }
        )
        if override_unsubscribes is not UNSET:
            field_dict["override_unsubscribes"] = override_unsubscribes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bulk_entry import BulkEntry  # noqa: PLC0415

        d = dict(src_dict)
        type_ = SuppressionType(d.pop("type"))

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = BulkEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        override_unsubscribes = d.pop("override_unsubscribes", UNSET)

        bulk_suppression_request = cls(
            type_=type_,
            entries=entries,
            override_unsubscribes=override_unsubscribes,
        )

        return bulk_suppression_request
