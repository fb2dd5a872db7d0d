from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset


T = TypeVar("T", bound="PaygCredits")


@_attrs_define
class PaygCredits:
    """Not shown by the spec: the pay-as-you-go balance, present while the quota is paid with credits
    (quota_source payg_credits, or a pooled subaccount whose organisation pays with them): prepaid
    emails left, spent once the plan's allowance is; at 0 a live send is 429 without Retry-After.

        Attributes:
            remaining (int):
            account_id (str): Whose balance: the account itself, or the organisation whose pool it draws on.
    """

    remaining: int
    account_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        remaining = self.remaining

        account_id = self.account_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "remaining": remaining,
                "account_id": account_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        remaining = d.pop("remaining")

        account_id = d.pop("account_id")

        payg_credits = cls(
            remaining=remaining,
            account_id=account_id,
        )

        payg_credits.additional_properties = d
        return payg_credits

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
