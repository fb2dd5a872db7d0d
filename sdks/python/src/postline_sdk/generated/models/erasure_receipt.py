from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset


T = TypeVar("T", bound="ErasureReceipt")


@_attrs_define
class ErasureReceipt:
    """A completed removal's proof: `payload` (canonical JSON: the counts, the keyed hash of the
    address, the accounts, the times) signed by the platform's Ed25519 key `kid` (published at
    /.well-known/svc/keys; `public_key` is its raw 32 bytes, base64url, for offline checks).

        Attributes:
            payload (str):
            kid (str):
            public_key (str):
            signature (str): Ed25519 over the UTF-8 bytes of payload, base64.
            alg (str | Unset):  Default: 'EdDSA'.
    """

    payload: str
    kid: str
    public_key: str
    signature: str
    alg: str | Unset = "EdDSA"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        payload = self.payload

        kid = self.kid

        public_key = self.public_key

        signature = self.signature

        alg = self.alg

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "payload": payload,
                "kid": kid,
                "public_key": public_key,
                "signature": signature,
            }
        )
        if alg is not UNSET:
            field_dict["alg"] = alg

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        payload = d.pop("payload")

        kid = d.pop("kid")

        public_key = d.pop("public_key")

        signature = d.pop("signature")

        alg = d.pop("alg", UNSET)

        erasure_receipt = cls(
            payload=payload,
            kid=kid,
            public_key=public_key,
            signature=signature,
            alg=alg,
        )

        erasure_receipt.additional_properties = d
        return erasure_receipt

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
