from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.export_status import ExportStatus
from typing import cast
import datetime


T = TypeVar("T", bound="ExportJobView")


@_attrs_define
class ExportJobView:
    """An export job as GET /v3/events/export/{id} returns it.

    Attributes:
        id (str):
        status (ExportStatus):
        filename (str):
        row_count (int | None): Rows written; set on completion.
        download_url (None | str): Presigned GET of the CSV once completed; never valid past expires_at.
        error_message (None | str): Why the export failed, e.g. more than 1,000,000 rows.
        created_at (datetime.datetime):
        completed_at (datetime.datetime | None):
        expires_at (datetime.datetime | None): When the file is deleted: 7 days after completion.
    """

    id: str
    status: ExportStatus
    filename: str
    row_count: int | None
    download_url: None | str
    error_message: None | str
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    expires_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status = self.status.value

        filename = self.filename

        row_count: int | None
        row_count = self.row_count

        download_url: None | str
        download_url = self.download_url

        error_message: None | str
        error_message = self.error_message

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "filename": filename,
                "row_count": row_count,
                "download_url": download_url,
                "error_message": error_message,
                "created_at": created_at,
                "completed_at": completed_at,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        status = ExportStatus(d.pop("status"))

        filename = d.pop("filename")

        def _parse_row_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        row_count = _parse_row_count(d.pop("row_count"))

        def _parse_download_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        download_url = _parse_download_url(d.pop("download_url"))

        def _parse_error_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_message = _parse_error_message(d.pop("error_message"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        export_job_view = cls(
            id=id,
            status=status,
            filename=filename,
            row_count=row_count,
            download_url=download_url,
            error_message=error_message,
            created_at=created_at,
            completed_at=completed_at,
            expires_at=expires_at,
        )

        export_job_view.additional_properties = d
        return export_job_view

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
