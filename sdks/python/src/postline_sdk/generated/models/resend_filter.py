from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.resend_filter_event_type_0_item import ResendFilterEventType0Item
from ..models.resend_filter_status_item import ResendFilterStatusItem
from ..types import UNSET, Unset
from typing import cast
import datetime


T = TypeVar("T", bound="ResendFilter")


@_attrs_define
class ResendFilter:
    """One endpoint's original deliveries (not earlier resends) in a window, by status and type.

    Attributes:
        endpoint_id (str): The endpoint whose history is searched (wh_...).
        since (datetime.datetime): Deliveries created at or after (ISO 8601); within the resend window.
        until (datetime.datetime | None | Unset): Deliveries created at or before; default now.
        status (list[ResendFilterStatusItem] | Unset): Statuses to resend; default ["failed"].
        event (list[ResendFilterEventType0Item] | None | Unset): Event types to resend; default all.
    """

    endpoint_id: str
    since: datetime.datetime
    until: datetime.datetime | None | Unset = UNSET
    status: list[ResendFilterStatusItem] | Unset = UNSET
    event: list[ResendFilterEventType0Item] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        endpoint_id = self.endpoint_id

        since = self.since.isoformat()

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        elif isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until

        status: list[str] | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = []
            for status_item_data in self.status:
                status_item = status_item_data.value
                status.append(status_item)

        event: list[str] | None | Unset
        if isinstance(self.event, Unset):
            event = UNSET
        elif isinstance(self.event, list):
            event = []
            for event_type_0_item_data in self.event:
                event_type_0_item = event_type_0_item_data.value
                event.append(event_type_0_item)

        else:
            event = self.event

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "endpoint_id": endpoint_id,
                "since": since,
            }
        )
        if until is not UNSET:
            field_dict["until"] = until
        if status is not UNSET:
            field_dict["status"] = status
        if event is not UNSET:
            field_dict["event"] = event

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        endpoint_id = d.pop("endpoint_id")

        since = datetime.datetime.fromisoformat(d.pop("since"))

        def _parse_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)

                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))

        _status = d.pop("status", UNSET)
        status: list[ResendFilterStatusItem] | Unset = UNSET
        if _status is not UNSET:
            status = []
            for status_item_data in _status:
                status_item = ResendFilterStatusItem(status_item_data)

                status.append(status_item)

        def _parse_event(data: object) -> list[ResendFilterEventType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_type_0 = []
                _event_type_0 = data
                for event_type_0_item_data in _event_type_0:
                    event_type_0_item = ResendFilterEventType0Item(event_type_0_item_data)

                    event_type_0.append(event_type_0_item)

                return event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResendFilterEventType0Item] | None | Unset, data)

        event = _parse_event(d.pop("event", UNSET))

        resend_filter = cls(
            endpoint_id=endpoint_id,
            since=since,
            until=until,
            status=status,
            event=event,
        )

        return resend_filter
