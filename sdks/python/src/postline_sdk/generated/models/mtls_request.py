from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset


T = TypeVar("T", bound="MtlsRequest")


@_attrs_define
class MtlsRequest:
    """
    Attributes:
        cert_pem (str): PEM client certificate.
        key_pem (str): PEM private key (write-only).
    """

    cert_pem: str
    key_pem: str

    def to_dict(self) -> dict[str, Any]:
        cert_pem = self.cert_pem

        key_pem = self.key_pem

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cert_pem": cert_pem,
                "key_pem": key_pem,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cert_pem = d.pop("cert_pem")

        key_pem = d.pop("key_pem")

        mtls_request = cls(
            cert_pem=cert_pem,
            key_pem=key_pem,
        )

        return mtls_request
