from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pool_type import PoolType
from ..models.provider import Provider
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.ip_pool_ip_details_type_0 import IpPoolIpDetailsType0


T = TypeVar("T", bound="IpPool")


@_attrs_define
class IpPool:
    """
    Attributes:
        id (str): A UUID.
        account_id (None | str): null: a platform pool (read-only).
        name (str):
        provider (Provider):
        region (None | str):
        type_ (PoolType):
        ips (list[str]):
        reputation (int | None): 0-100, read-only: staff's value when they set one, else (the account's own pools)
            computed from the last 30 days' bounce and complaint rates of the pool's mail; null below 100 copies.
        ip_details (IpPoolIpDetailsType0 | None): Per-IP metadata, staff-managed; read-only. An address's computed
            reputation (0-100) is under its `reputation` key where staff set none.
        created_at (datetime.datetime):
        warming_since (datetime.date | None): A warming pool's day 1 of the warm-up ramp (UTC); null otherwise.
        default (bool): Whether it is the account's default pool.
    """

    id: str
    account_id: None | str
    name: str
    provider: Provider
    region: None | str
    type_: PoolType
    ips: list[str]
    reputation: int | None
    ip_details: IpPoolIpDetailsType0 | None
    created_at: datetime.datetime
    warming_since: datetime.date | None
    default: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.ip_pool_ip_details_type_0 import IpPoolIpDetailsType0  # noqa: PLC0415

        id = self.id

        account_id: None | str
        account_id = self.account_id

        name = self.name

        provider = self.provider.value

        region: None | str
        region = self.region

        type_ = self.type_.value

        ips = self.ips

        reputation: int | None
        reputation = self.reputation

        ip_details: dict[str, Any] | None
        if isinstance(self.ip_details, IpPoolIpDetailsType0):
            ip_details = self.ip_details.to_dict()
        else:
            ip_details = self.ip_details

        created_at = self.created_at.isoformat()

        warming_since: None | str
        if isinstance(self.warming_since, datetime.date):
            warming_since = self.warming_since.isoformat()
        else:
            warming_since = self.warming_since

        default = self.default

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "account_id": account_id,
                "name": name,
                "provider": provider,
                "region": region,
                "type": type_,
                "ips": ips,
                "reputation": reputation,
                "ip_details": ip_details,
                "created_at": created_at,
                "warming_since": warming_since,
                "default": default,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ip_pool_ip_details_type_0 import IpPoolIpDetailsType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        def _parse_account_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        account_id = _parse_account_id(d.pop("account_id"))

        name = d.pop("name")

        provider = Provider(d.pop("provider"))

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        type_ = PoolType(d.pop("type"))

        ips = cast(list[str], d.pop("ips"))

        def _parse_reputation(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        reputation = _parse_reputation(d.pop("reputation"))

        def _parse_ip_details(data: object) -> IpPoolIpDetailsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ip_details_type_0 = IpPoolIpDetailsType0.from_dict(data)

                return ip_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IpPoolIpDetailsType0 | None, data)

        ip_details = _parse_ip_details(d.pop("ip_details"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_warming_since(data: object) -> datetime.date | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                warming_since_type_0 = datetime.date.fromisoformat(data)

                return warming_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.date | None, data)

        warming_since = _parse_warming_since(d.pop("warming_since"))

        default = d.pop("default")

        ip_pool = cls(
            id=id,
            account_id=account_id,
            name=name,
            provider=provider,
            region=region,
            type_=type_,
            ips=ips,
            reputation=reputation,
            ip_details=ip_details,
            created_at=created_at,
            warming_since=warming_since,
            default=default,
        )

        ip_pool.additional_properties = d
        return ip_pool

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
