from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.provider import Provider
from typing import cast


T = TypeVar("T", bound="Ip")


@_attrs_define
class Ip:
    """
    Attributes:
        ip (str):
        pool_id (str):
        pool_name (str):
        provider (Provider):
        region (None | str):
    """

    ip: str
    pool_id: str
    pool_name: str
    provider: Provider
    region: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ip = self.ip

        pool_id = self.pool_id

        pool_name = self.pool_name

        provider = self.provider.value

        region: None | str
        region = self.region

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ip": ip,
                "pool_id": pool_id,
                "pool_name": pool_name,
                "provider": provider,
                "region": region,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ip = d.pop("ip")

        pool_id = d.pop("pool_id")

        pool_name = d.pop("pool_name")

        provider = Provider(d.pop("provider"))

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        ip = cls(
            ip=ip,
            pool_id=pool_id,
            pool_name=pool_name,
            provider=provider,
            region=region,
        )

        ip.additional_properties = d
        return ip

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
