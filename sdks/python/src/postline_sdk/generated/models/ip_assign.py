from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset


T = TypeVar("T", bound="IpAssign")


@_attrs_define
class IpAssign:
    """
    Attributes:
        ip (str): An address allocated to the account, now in another of its pools.
    """

    ip: str

    def to_dict(self) -> dict[str, Any]:
        ip = self.ip

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ip": ip,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ip = d.pop("ip")

        ip_assign = cls(
            ip=ip,
        )

        return ip_assign
