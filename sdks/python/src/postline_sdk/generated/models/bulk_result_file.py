from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime


T = TypeVar("T", bound="BulkResultFile")


@_attrs_define
class BulkResultFile:
    """GET /v3/validate/bulk/{id}/file: the download and its proof.

    Attributes:
        job_id (str):
        filename (str):
        download_url (str): A presigned GET of the CSV, valid until expires_at.
        expires_at (datetime.datetime):
        rows (int):
        size_bytes (int):
        fingerprint (str): SHA-256 of the file's bytes, lower-case hex.
        signature (str): Base64 Ed25519 signature of "postline-proof.v1." + fingerprint.
        kid (str): The signing key's id in /.well-known/svc/keys.
        registry (str):
        issued (datetime.datetime):
    """

    job_id: str
    filename: str
    download_url: str
    expires_at: datetime.datetime
    rows: int
    size_bytes: int
    fingerprint: str
    signature: str
    kid: str
    registry: str
    issued: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        filename = self.filename

        download_url = self.download_url

        expires_at = self.expires_at.isoformat()

        rows = self.rows

        size_bytes = self.size_bytes

        fingerprint = self.fingerprint

        signature = self.signature

        kid = self.kid

        registry = self.registry

        issued = self.issued.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "filename": filename,
                "download_url": download_url,
                "expires_at": expires_at,
                "rows": rows,
                "size_bytes": size_bytes,
                "fingerprint": fingerprint,
                "signature": signature,
                "kid": kid,
                "registry": registry,
                "issued": issued,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        filename = d.pop("filename")

        download_url = d.pop("download_url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        rows = d.pop("rows")

        size_bytes = d.pop("size_bytes")

        fingerprint = d.pop("fingerprint")

        signature = d.pop("signature")

        kid = d.pop("kid")

        registry = d.pop("registry")

        issued = datetime.datetime.fromisoformat(d.pop("issued"))

        bulk_result_file = cls(
            job_id=job_id,
            filename=filename,
            download_url=download_url,
            expires_at=expires_at,
            rows=rows,
            size_bytes=size_bytes,
            fingerprint=fingerprint,
            signature=signature,
            kid=kid,
            registry=registry,
            issued=issued,
        )

        bulk_result_file.additional_properties = d
        return bulk_result_file

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
