from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.bulk_status import BulkStatus
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.bulk_summary import BulkSummary
    from ..models.row_error import RowError


T = TypeVar("T", bound="BulkVerificationJob")


@_attrs_define
class BulkVerificationJob:
    """
    Attributes:
        job_id (str):
        status (BulkStatus):
        filename (None | str):
        total_count (int):
        processed_count (int):
        summary (BulkSummary):
        created_at (datetime.datetime):
        completed_at (datetime.datetime | None):
        webhook_url (None | str):
        error_message (None | str):
        can_retry (bool):
        skipped (int): A CSV file's rows without an address: not checked, not charged.
        errors (list[RowError]): The first 500 skipped rows (row 1 is the header).
    """

    job_id: str
    status: BulkStatus
    filename: None | str
    total_count: int
    processed_count: int
    summary: BulkSummary
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    webhook_url: None | str
    error_message: None | str
    can_retry: bool
    skipped: int
    errors: list[RowError]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.bulk_summary import BulkSummary  # noqa: PLC0415
        from ..models.row_error import RowError  # noqa: PLC0415

        job_id = self.job_id

        status = self.status.value

        filename: None | str
        filename = self.filename

        total_count = self.total_count

        processed_count = self.processed_count

        summary = self.summary.to_dict()

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        webhook_url: None | str
        webhook_url = self.webhook_url

        error_message: None | str
        error_message = self.error_message

        can_retry = self.can_retry

        skipped = self.skipped

        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "status": status,
                "filename": filename,
                "total_count": total_count,
                "processed_count": processed_count,
                "summary": summary,
                "created_at": created_at,
                "completed_at": completed_at,
                "webhook_url": webhook_url,
                "error_message": error_message,
                "can_retry": can_retry,
                "skipped": skipped,
                "errors": errors,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bulk_summary import BulkSummary  # noqa: PLC0415
        from ..models.row_error import RowError  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id")

        status = BulkStatus(d.pop("status"))

        def _parse_filename(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        filename = _parse_filename(d.pop("filename"))

        total_count = d.pop("total_count")

        processed_count = d.pop("processed_count")

        summary = BulkSummary.from_dict(d.pop("summary"))

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

        def _parse_webhook_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        webhook_url = _parse_webhook_url(d.pop("webhook_url"))

        def _parse_error_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_message = _parse_error_message(d.pop("error_message"))

        can_retry = d.pop("can_retry")

        skipped = d.pop("skipped")

        errors = []
        _errors = d.pop("errors")
        for errors_item_data in _errors:
            errors_item = RowError.from_dict(errors_item_data)

            errors.append(errors_item)

        bulk_verification_job = cls(
            job_id=job_id,
            status=status,
            filename=filename,
            total_count=total_count,
            processed_count=processed_count,
            summary=summary,
            created_at=created_at,
            completed_at=completed_at,
            webhook_url=webhook_url,
            error_message=error_message,
            can_retry=can_retry,
            skipped=skipped,
            errors=errors,
        )

        bulk_verification_job.additional_properties = d
        return bulk_verification_job

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
