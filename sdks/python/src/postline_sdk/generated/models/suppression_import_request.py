from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.suppression_type import SuppressionType
from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="SuppressionImportRequest")


@_attrs_define
class SuppressionImportRequest:
    """POST /v3/suppressions/import: a CSV file, in the body, added to one list.

    Attributes:
        type_ (SuppressionType):
        filename (str | Unset):  Default: 'import.csv'.
        csv (None | str | Unset): The file's text: a header row naming `email` (required), `reason`, `created_at`, then
            a row per address. Up to 5,000,000 characters; leave it out to upload a larger file to `upload_url` instead.
    """

    type_: SuppressionType
    filename: str | Unset = "import.csv"
    csv: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        filename = self.filename

        csv: None | str | Unset
        if isinstance(self.csv, Unset):
            csv = UNSET
        else:
            csv = self.csv

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
            }
        )
        if filename is not UNSET:
            field_dict["filename"] = filename
        if csv is not UNSET:
            field_dict["csv"] = csv

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = SuppressionType(d.pop("type"))

        filename = d.pop("filename", UNSET)

        def _parse_csv(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        csv = _parse_csv(d.pop("csv", UNSET))

        suppression_import_request = cls(
            type_=type_,
            filename=filename,
            csv=csv,
        )

        return suppression_import_request
