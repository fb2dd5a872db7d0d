from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.account_status import AccountStatus
from ..models.plan import Plan
from typing import cast


T = TypeVar("T", bound="IdentityAccount")


@_attrs_define
class IdentityAccount:
    """
    Attributes:
        id (str):
        name (None | str):
        plan (None | Plan):
        status (AccountStatus | None):
    """

    id: str
    name: None | str
    plan: None | Plan
    status: AccountStatus | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name: None | str
        name = self.name

        plan: None | str
        if isinstance(self.plan, Plan):
            plan = self.plan.value
        else:
            plan = self.plan

        status: None | str
        if isinstance(self.status, AccountStatus):
            status = self.status.value
        else:
            status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "plan": plan,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        def _parse_plan(data: object) -> None | Plan:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                plan_type_0 = Plan(data)

                return plan_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Plan, data)

        plan = _parse_plan(d.pop("plan"))

        def _parse_status(data: object) -> AccountStatus | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = AccountStatus(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AccountStatus | None, data)

        status = _parse_status(d.pop("status"))

        identity_account = cls(
            id=id,
            name=name,
            plan=plan,
            status=status,
        )

        identity_account.additional_properties = d
        return identity_account

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
