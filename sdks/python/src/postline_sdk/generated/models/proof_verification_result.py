from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.fingerprint_check import FingerprintCheck
from ..models.signature_check import SignatureCheck
from typing import cast
import datetime


T = TypeVar("T", bound="ProofVerificationResult")


@_attrs_define
class ProofVerificationResult:
    """
    Attributes:
        verified (bool):
        signature (SignatureCheck):
        fingerprint (FingerprintCheck):
        registry (str):
        issued (datetime.datetime | None):
    """

    verified: bool
    signature: SignatureCheck
    fingerprint: FingerprintCheck
    registry: str
    issued: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        verified = self.verified

        signature = self.signature.value

        fingerprint = self.fingerprint.value

        registry = self.registry

        issued: None | str
        if isinstance(self.issued, datetime.datetime):
            issued = self.issued.isoformat()
        else:
            issued = self.issued

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "verified": verified,
                "signature": signature,
                "fingerprint": fingerprint,
                "registry": registry,
                "issued": issued,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        verified = d.pop("verified")

        signature = SignatureCheck(d.pop("signature"))

        fingerprint = FingerprintCheck(d.pop("fingerprint"))

        registry = d.pop("registry")

        def _parse_issued(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                issued_type_0 = datetime.datetime.fromisoformat(data)

                return issued_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        issued = _parse_issued(d.pop("issued"))

        proof_verification_result = cls(
            verified=verified,
            signature=signature,
            fingerprint=fingerprint,
            registry=registry,
            issued=issued,
        )

        proof_verification_result.additional_properties = d
        return proof_verification_result

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
