from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="ProofVerifyRequest")


@_attrs_define
class ProofVerifyRequest:
    """
    Attributes:
        file (None | str | Unset): The result file's content, exactly as downloaded (UTF-8); its SHA-256 is checked.
        fingerprint (None | str | Unset): The claimed SHA-256 of the file, lower-case hex.
        signature (None | str | Unset): The claimed signature (base64) to check with the registry's key.
    """

    file: None | str | Unset = UNSET
    fingerprint: None | str | Unset = UNSET
    signature: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        file: None | str | Unset
        if isinstance(self.file, Unset):
            file = UNSET
        else:
            file = self.file

        fingerprint: None | str | Unset
        if isinstance(self.fingerprint, Unset):
            fingerprint = UNSET
        else:
            fingerprint = self.fingerprint

        signature: None | str | Unset
        if isinstance(self.signature, Unset):
            signature = UNSET
        else:
            signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if file is not UNSET:
            field_dict["file"] = file
        if fingerprint is not UNSET:
            field_dict["fingerprint"] = fingerprint
        if signature is not UNSET:
            field_dict["signature"] = signature

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_file(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file = _parse_file(d.pop("file", UNSET))

        def _parse_fingerprint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fingerprint = _parse_fingerprint(d.pop("fingerprint", UNSET))

        def _parse_signature(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signature = _parse_signature(d.pop("signature", UNSET))

        proof_verify_request = cls(
            file=file,
            fingerprint=fingerprint,
            signature=signature,
        )

        return proof_verify_request
