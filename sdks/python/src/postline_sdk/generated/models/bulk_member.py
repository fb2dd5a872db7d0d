from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.bulk_member_vars_type_0 import BulkMemberVarsType0


T = TypeVar("T", bound="BulkMember")


@_attrs_define
class BulkMember:
    """
    Attributes:
        address (str):
        name (None | str | Unset):
        vars_ (BulkMemberVarsType0 | None | Unset):
        subscribed (bool | None | Unset): New members default to true; absent keeps it.
    """

    address: str
    name: None | str | Unset = UNSET
    vars_: BulkMemberVarsType0 | None | Unset = UNSET
    subscribed: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.bulk_member_vars_type_0 import BulkMemberVarsType0  # noqa: PLC0415

        address = self.address

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        vars_: dict[str, Any] | None | Unset
        if isinstance(self.vars_, Unset):
            vars_ = UNSET
        elif isinstance(self.vars_, BulkMemberVarsType0):
            vars_ = self.vars_.to_dict()
        else:
            vars_ = self.vars_

        subscribed: bool | None | Unset
        if isinstance(self.subscribed, Unset):
            subscribed = UNSET
        else:
            subscribed = self.subscribed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "address": address,
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
        from ..models.bulk_member_vars_type_0 import BulkMemberVarsType0  # noqa: PLC0415

        d = dict(src_dict)
        address = d.pop("address")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_vars_(data: object) -> BulkMemberVarsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vars_type_0 = BulkMemberVarsType0.from_dict(data)

                return vars_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BulkMemberVarsType0 | None | Unset, data)

        vars_ = _parse_vars_(d.pop("vars", UNSET))

        def _parse_subscribed(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        subscribed = _parse_subscribed(d.pop("subscribed", UNSET))

        bulk_member = cls(
            address=address,
            name=name,
            vars_=vars_,
            subscribed=subscribed,
        )

        return bulk_member
