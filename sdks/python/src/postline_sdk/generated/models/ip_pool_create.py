from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pool_type import PoolType
from ..models.scaling import Scaling
from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="IpPoolCreate")


@_attrs_define
class IpPoolCreate:
    """
    Attributes:
        name (str):
        type_ (PoolType | Unset):
        region (None | str | Unset):
        default (bool | Unset): Make it the account's default pool. Default: False.
        scaling (Scaling | Unset): How SES fills a pool's addresses (the SES transport only): standard, the ones the
            operator
            allocates; managed, addresses SES leases, warms and scales to the pool's volume by itself.
    """

    name: str
    type_: PoolType | Unset = UNSET
    region: None | str | Unset = UNSET
    default: bool | Unset = False
    scaling: Scaling | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value

        region: None | str | Unset
        if isinstance(self.region, Unset):
            region = UNSET
        else:
            region = self.region

        default = self.default

        scaling: str | Unset = UNSET
        if not isinstance(self.scaling, Unset):
            scaling = self.scaling.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_
        if region is not UNSET:
            field_dict["region"] = region
        if default is not UNSET:
            field_dict["default"] = default
        if scaling is not UNSET:
            field_dict["scaling"] = scaling

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        _type_ = d.pop("type", UNSET)
        type_: PoolType | Unset
        if isinstance(_type_, Unset):
            type_ = UNSET
        else:
            type_ = PoolType(_type_)

        def _parse_region(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        region = _parse_region(d.pop("region", UNSET))

        default = d.pop("default", UNSET)

        _scaling = d.pop("scaling", UNSET)
        scaling: Scaling | Unset
        if isinstance(_scaling, Unset):
            scaling = UNSET
        else:
            scaling = Scaling(_scaling)

        ip_pool_create = cls(
            name=name,
            type_=type_,
            region=region,
            default=default,
            scaling=scaling,
        )

        return ip_pool_create
