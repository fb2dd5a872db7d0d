from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.list_member_vars_type_0 import ListMemberVarsType0


T = TypeVar("T", bound="ListMember")


@_attrs_define
class ListMember:
    """
    Attributes:
        id (str):
        list_id (str):
        address (str):
        created_at (datetime.datetime):
        name (None | str | Unset):
        vars_ (ListMemberVarsType0 | None | Unset):
        subscribed (bool | Unset):  Default: True.
    """

    id: str
    list_id: str
    address: str
    created_at: datetime.datetime
    name: None | str | Unset = UNSET
    vars_: ListMemberVarsType0 | None | Unset = UNSET
    subscribed: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.list_member_vars_type_0 import ListMemberVarsType0  # noqa: PLC0415

        id = self.id

        list_id = self.list_id

        address = self.address

        created_at = self.created_at.isoformat()

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        vars_: dict[str, Any] | None | Unset
        if isinstance(self.vars_, Unset):
            vars_ = UNSET
        elif isinstance(self.vars_, ListMemberVarsType0):
            vars_ = self.vars_.to_dict()
        else:
            vars_ = self.vars_

        subscribed = self.subscribed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "list_id": list_id,
                "address": address,
                "created_at": created_at,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if vars_ is not UNSET:
            field_dict["vars"] = vars_
        if subscribed is not UNSET:
            field_dict["subscribed"] = subscribed

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.list_member_vars_type_0 import ListMemberVarsType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        list_id = d.pop("list_id")

        address = d.pop("address")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_vars_(data: object) -> ListMemberVarsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vars_type_0 = ListMemberVarsType0.from_dict(data)

                return vars_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ListMemberVarsType0 | None | Unset, data)

        vars_ = _parse_vars_(d.pop("vars", UNSET))

        subscribed = d.pop("subscribed", UNSET)

        list_member = cls(
            id=id,
            list_id=list_id,
            address=address,
            created_at=created_at,
            name=name,
            vars_=vars_,
            subscribed=subscribed,
        )

        list_member.additional_properties = d
        return list_member

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
