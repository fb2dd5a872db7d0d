from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.suppression_type import SuppressionType
from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="BulkSuppressionDelete")


@_attrs_define
class BulkSuppressionDelete:
    """DELETE /v3/suppressions/bulk: up to 10,000 addresses of one type.

    Attributes:
        type_ (SuppressionType):
        emails (list[str]):
        remove_unsubscribes (bool | Unset): Required (true) to remove an unsubscribes entry: the address asked not to be
            mailed, and mailing it again is your call; recorded in the audit entry. Default: False.
    """

    type_: SuppressionType
    emails: list[str]
    remove_unsubscribes: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        emails = self.emails

        remove_unsubscribes = self.remove_unsubscribes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "emails": emails,
            }
        )
        if remove_unsubscribes is not UNSET:
            field_dict["remove_unsubscribes"] = remove_unsubscribes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = SuppressionType(d.pop("type"))

        emails = cast(list[str], d.pop("emails"))

        remove_unsubscribes = d.pop("remove_unsubscribes", UNSET)

        bulk_suppression_delete = cls(
            type_=type_,
            emails=emails,
            remove_unsubscribes=remove_unsubscribes,
        )

        return bulk_suppression_delete
