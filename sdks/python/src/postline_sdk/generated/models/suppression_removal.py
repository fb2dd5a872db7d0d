from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset


T = TypeVar("T", bound="SuppressionRemoval")


@_attrs_define
class SuppressionRemoval:
    """The optional body of DELETE /v3/suppressions/{id} and /v3/suppressions/{type}/{email}.

    Attributes:
        remove_unsubscribes (bool | Unset): Required (true) to remove an unsubscribes entry: the address asked not to be
            mailed, and mailing it again is your call; recorded in the audit entry. Default: False.
    """

    remove_unsubscribes: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        remove_unsubscribes = self.remove_unsubscribes

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if remove_unsubscribes is not UNSET:
            field_dict["remove_unsubscribes"] = remove_unsubscribes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        remove_unsubscribes = d.pop("remove_unsubscribes", UNSET)

        suppression_removal = cls(
            remove_unsubscribes=remove_unsubscribes,
        )

        return suppression_removal
