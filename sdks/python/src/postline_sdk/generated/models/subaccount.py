from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.subaccount_status import SubaccountStatus
from typing import cast
import datetime


T = TypeVar("T", bound="Subaccount")


@_attrs_define
class Subaccount:
    """
    Attributes:
        id (str): A UUID: the subaccount's account id.
        parent_account_id (str):
        name (str):
        slug (str):
        status (SubaccountStatus):
        created_at (datetime.datetime):
    """

    id: str
    parent_account_id: str
    name: str
    slug: str
    status: SubaccountStatus
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        parent_account_id = self.parent_account_id

        name = self.name

        slug = self.slug

        status = self.status.value

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "parent_account_id": parent_account_id,
                "name": name,
                "slug": slug,
                "status": status,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        parent_account_id = d.pop("parent_account_id")

        name = d.pop("name")

        slug = d.pop("slug")

        status = SubaccountStatus(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        subaccount = cls(
            id=id,
            parent_account_id=parent_account_id,
            name=name,
            slug=slug,
            status=status,
            created_at=created_at,
        )

        subaccount.additional_properties = d
        return subaccount

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
