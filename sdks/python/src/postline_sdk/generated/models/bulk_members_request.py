from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.bulk_member import BulkMember


T = TypeVar("T", bound="BulkMembersRequest")


@_attrs_define
class BulkMembersRequest:
    """POST /v3/lists/{id}/members/bulk: up to 1,000 members, upserted by address.

    Attributes:
        members (list[BulkMember]):
        replace_vars (bool | Unset): false (default): each member's given `vars` are merged over the stored ones key by
            key (a key given as null is removed); true: they replace them. Default: False.
    """

    members: list[BulkMember]
    replace_vars: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        from ..models.bulk_member import BulkMember  # noqa: PLC0415

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        replace_vars = self.replace_vars

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "members": members,
            }
        )
        if replace_vars is not UNSET:
            field_dict["replace_vars"] = replace_vars

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bulk_member import BulkMember  # noqa: PLC0415

        d = dict(src_dict)
        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = BulkMember.from_dict(members_item_data)

            members.append(members_item)

        replace_vars = d.pop("replace_vars", UNSET)

        bulk_members_request = cls(
            members=members,
            replace_vars=replace_vars,
        )

        return bulk_members_request
