from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="DomainUpdate")


@_attrs_define
class DomainUpdate:
    """PATCH: the fields present change (null removes).

    Attributes:
        tracking_subdomain (None | str | Unset):
        region (None | str | Unset):
    """

    tracking_subdomain: None | str | Unset = UNSET
    region: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        tracking_subdomain: None | str | Unset
        if isinstance(self.tracking_subdomain, Unset):
            tracking_subdomain = UNSET
        else:
            tracking_subdomain = self.tracking_subdomain

        region: None | str | Unset
        if isinstance(self.region, Unset):
            region = UNSET
        else:
            region = self.region

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if tracking_subdomain is not UNSET:
            field_dict["tracking_subdomain"] = tracking_subdomain
        if region is not UNSET:
            field_dict["region"] = region

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_tracking_subdomain(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tracking_subdomain = _parse_tracking_subdomain(d.pop("tracking_subdomain", UNSET))

        def _parse_region(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        region = _parse_region(d.pop("region", UNSET))

        domain_update = cls(
            tracking_subdomain=tracking_subdomain,
            region=region,
        )

        return domain_update
