from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.import_status import ImportStatus
from ..types import UNSET, Unset
from typing import cast
import datetime


T = TypeVar("T", bound="SuppressionImportAccepted")


@_attrs_define
class SuppressionImportAccepted:
    """
    Attributes:
        import_id (str):
        status (ImportStatus):
        upload_url (None | str | Unset): Without `csv` in the request: PUT the file here (`Content-Type: text/csv`)
            within the hour, then poll GET /v3/suppressions/imports/{id}: the first poll that finds the file starts the
            import.
        upload_expires_at (datetime.datetime | None | Unset):
    """

    import_id: str
    status: ImportStatus
    upload_url: None | str | Unset = UNSET
    upload_expires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        import_id = self.import_id

        status = self.status.value

        upload_url: None | str | Unset
        if isinstance(self.upload_url, Unset):
            upload_url = UNSET
        else:
            upload_url = self.upload_url

        upload_expires_at: None | str | Unset
        if isinstance(self.upload_expires_at, Unset):
            upload_expires_at = UNSET
        elif isinstance(self.upload_expires_at, datetime.datetime):
            upload_expires_at = self.upload_expires_at.isoformat()
        else:
            upload_expires_at = self.upload_expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "import_id": import_id,
                "status": status,
            }
        )
        if upload_url is not UNSET:
            field_dict["upload_url"] = upload_url
        if upload_expires_at is not UNSET:
            field_dict["upload_expires_at"] = upload_expires_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        import_id = d.pop("import_id")

        status = ImportStatus(d.pop("status"))

        def _parse_upload_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        upload_url = _parse_upload_url(d.pop("upload_url", UNSET))

        def _parse_upload_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                upload_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return upload_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        upload_expires_at = _parse_upload_expires_at(d.pop("upload_expires_at", UNSET))

        suppression_import_accepted = cls(
            import_id=import_id,
            status=status,
            upload_url=upload_url,
            upload_expires_at=upload_expires_at,
        )

        suppression_import_accepted.additional_properties = d
        return suppression_import_accepted

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
