from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.resend_job_view_mode import ResendJobViewMode
from ..models.resend_status import ResendStatus
from typing import cast
import datetime


T = TypeVar("T", bound="ResendJobView")


@_attrs_define
class ResendJobView:
    """GET /v3/webhooks/deliveries/resend/{id}, and the 202 of the POST.

    Attributes:
        id (str):
        status (ResendStatus):
        endpoint_id (None | str): The destination endpoint; null: each delivery's own.
        mode (ResendJobViewMode):
        matched (int): Deliveries selected; known once running.
        attempted (int): Resends whose single attempt is over; the job completes at matched.
        succeeded (int):
        failed (int):
        error_message (None | str): Why the job stopped early, e.g. over 10,000 matches.
        created_at (datetime.datetime):
        completed_at (datetime.datetime | None):
    """

    id: str
    status: ResendStatus
    endpoint_id: None | str
    mode: ResendJobViewMode
    matched: int
    attempted: int
    succeeded: int
    failed: int
    error_message: None | str
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status = self.status.value

        endpoint_id: None | str
        endpoint_id = self.endpoint_id

        mode = self.mode.value

        matched = self.matched

        attempted = self.attempted

        succeeded = self.succeeded

        failed = self.failed

        error_message: None | str
        error_message = self.error_message

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "endpoint_id": endpoint_id,
                "mode": mode,
                "matched": matched,
                "attempted": attempted,
                "succeeded": succeeded,
                "failed": failed,
                "error_message": error_message,
                "created_at": created_at,
                "completed_at": completed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        status = ResendStatus(d.pop("status"))

        def _parse_endpoint_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endpoint_id = _parse_endpoint_id(d.pop("endpoint_id"))

        mode = ResendJobViewMode(d.pop("mode"))

        matched = d.pop("matched")

        attempted = d.pop("attempted")

        succeeded = d.pop("succeeded")

        failed = d.pop("failed")

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

        resend_job_view = cls(
            id=id,
            status=status,
            endpoint_id=endpoint_id,
            mode=mode,
            matched=matched,
            attempted=attempted,
            succeeded=succeeded,
            failed=failed,
            error_message=error_message,
            created_at=created_at,
            completed_at=completed_at,
        )

        resend_job_view.additional_properties = d
        return resend_job_view

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
