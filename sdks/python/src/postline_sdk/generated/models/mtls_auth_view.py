from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast
import datetime


T = TypeVar("T", bound="MtlsAuthView")


@_attrs_define
class MtlsAuthView:
    """
    Attributes:
        fingerprint_sha256 (str):
        subject (str):
        expires_at (datetime.datetime):
        mode (Literal['mtls'] | Unset):  Default: 'mtls'.
    """

    fingerprint_sha256: str
    subject: str
    expires_at: datetime.datetime
    mode: Literal["mtls"] | Unset = "mtls"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fingerprint_sha256 = self.fingerprint_sha256

        subject = self.subject

        expires_at = self.expires_at.isoformat()

        mode = self.mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fingerprint_sha256": fingerprint_sha256,
                "subject": subject,
                "expires_at": expires_at,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fingerprint_sha256 = d.pop("fingerprint_sha256")

        subject = d.pop("subject")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        mode = cast(Literal["mtls"] | Unset, d.pop("mode", UNSET))
        if mode != "mtls" and not isinstance(mode, Unset):
            raise ValueError(f"mode must match const 'mtls', got '{mode}'")

        mtls_auth_view = cls(
            fingerprint_sha256=fingerprint_sha256,
            subject=subject,
            expires_at=expires_at,
            mode=mode,
        )

        mtls_auth_view.additional_properties = d
        return mtls_auth_view

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
