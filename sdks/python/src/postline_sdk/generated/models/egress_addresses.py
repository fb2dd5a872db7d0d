from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.egress_addresses_used_for_item import EgressAddressesUsedForItem
from typing import cast


T = TypeVar("T", bound="EgressAddresses")


@_attrs_define
class EgressAddresses:
    """What receivers allowlist: mail from the relay (SMTP to recipients' MX) and webhook calls both
    originate from these addresses. A change is announced in advance (the interface's promise).

        Attributes:
            ipv4 (list[str]): The source addresses, one today (one NAT gateway on purpose).
            static (bool): True when the addresses are the deployment's fixed Elastic IPs.
            used_for (list[EgressAddressesUsedForItem]): The outbound traffic that uses them.
    """

    ipv4: list[str]
    static: bool
    used_for: list[EgressAddressesUsedForItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ipv4 = self.ipv4

        static = self.static

        used_for = []
        for used_for_item_data in self.used_for:
            used_for_item = used_for_item_data.value
            used_for.append(used_for_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ipv4": ipv4,
                "static": static,
                "used_for": used_for,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ipv4 = cast(list[str], d.pop("ipv4"))

        static = d.pop("static")

        used_for = []
        _used_for = d.pop("used_for")
        for used_for_item_data in _used_for:
            used_for_item = EgressAddressesUsedForItem(used_for_item_data)

            used_for.append(used_for_item)

        egress_addresses = cls(
            ipv4=ipv4,
            static=static,
            used_for=used_for,
        )

        egress_addresses.additional_properties = d
        return egress_addresses

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
