from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset


T = TypeVar("T", bound="HmacRequest")


@_attrs_define
class HmacRequest:
    """
    Attributes:
        header (str | Unset): Header carrying the signature. Default: 'X-Svc-Signature'.
    """

    header: str | Unset = "X-Svc-Signature"

    def to_dict(self) -> dict[str, Any]:
        header = self.header

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if header is not UNSET:
            field_dict["header"] = header

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        header = d.pop("header", UNSET)

        hmac_request = cls(
            header=header,
        )

        return hmac_request
