from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_export_request_event_type_0 import EventExportRequestEventType0
from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast
import datetime

if TYPE_CHECKING:
    from ..models.event_export_request_metadata import EventExportRequestMetadata


T = TypeVar("T", bound="EventExportRequest")


@_attrs_define
class EventExportRequest:
    """POST /v3/events/export: the filters of GET /v3/events over a window within retention.

    Attributes:
        since (datetime.datetime): Events at or after (ISO 8601); within the account's retention.
        until (datetime.datetime): Events at or before (ISO 8601); not in the future.
        event (EventExportRequestEventType0 | None | Unset): One event type.
        recipient (None | str | Unset): Exact address, compared case-insensitively.
        tag (None | str | Unset): Events carrying this tag.
        message_id (None | str | Unset): All events of one message.
        metadata (EventExportRequestMetadata | Unset): Exact match on metadata attached at send: at most 3 keys (1-64
            letters, digits, dots, dashes, underscores), values at most 200 characters.
        ip_pool (None | str | Unset): Events of copies sent through this IP pool (its id; data.ip_pool).
        ip (None | str | Unset): Events of copies sent from this source address (data.ip).
        format_ (Literal['csv'] | Unset): Only csv. Default: 'csv'.
    """

    since: datetime.datetime
    until: datetime.datetime
    event: EventExportRequestEventType0 | None | Unset = UNSET
    recipient: None | str | Unset = UNSET
    tag: None | str | Unset = UNSET
    message_id: None | str | Unset = UNSET
    metadata: EventExportRequestMetadata | Unset = UNSET
    ip_pool: None | str | Unset = UNSET
    ip: None | str | Unset = UNSET
    format_: Literal["csv"] | Unset = "csv"

    def to_dict(self) -> dict[str, Any]:
        from ..models.event_export_request_metadata import EventExportRequestMetadata  # noqa: PLC0415

        since = self.since.isoformat()

        until = self.until.isoformat()

        event: None | str | Unset
        if isinstance(self.event, Unset):
            event = UNSET
        elif isinstance(self.event, EventExportRequestEventType0):
            event = self.event.value
        else:
            event = self.event

        recipient: None | str | Unset
        if isinstance(self.recipient, Unset):
            recipient = UNSET
        else:
            recipient = self.recipient

        tag: None | str | Unset
        if isinstance(self.tag, Unset):
            tag = UNSET
        else:
            tag = self.tag

        message_id: None | str | Unset
        if isinstance(self.message_id, Unset):
            message_id = UNSET
        else:
            message_id = self.message_id

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        ip_pool: None | str | Unset
        if isinstance(self.ip_pool, Unset):
            ip_pool = UNSET
        else:
            ip_pool = self.ip_pool

        ip: None | str | Unset
        if isinstance(self.ip, Unset):
            ip = UNSET
        else:
            ip = self.ip

        format_ = self.format_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "since": since,
                "until": until,
            }
        )
        if event is not UNSET:
            field_dict["event"] = event
        if recipient is not UNSET:
            field_dict["recipient"] = recipient
        if tag is not UNSET:
            field_dict["tag"] = tag
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if ip_pool is not UNSET:
            field_dict["ip_pool"] = ip_pool
        if ip is not UNSET:
            field_dict["ip"] = ip
        if format_ is not UNSET:
            field_dict["format"] = format_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_export_request_metadata import EventExportRequestMetadata  # noqa: PLC0415

        d = dict(src_dict)
        since = datetime.datetime.fromisoformat(d.pop("since"))

        until = datetime.datetime.fromisoformat(d.pop("until"))

        def _parse_event(data: object) -> EventExportRequestEventType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                event_type_0 = EventExportRequestEventType0(data)

                return event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventExportRequestEventType0 | None | Unset, data)

        event = _parse_event(d.pop("event", UNSET))

        def _parse_recipient(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        recipient = _parse_recipient(d.pop("recipient", UNSET))

        def _parse_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tag = _parse_tag(d.pop("tag", UNSET))

        def _parse_message_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message_id = _parse_message_id(d.pop("message_id", UNSET))

        _metadata = d.pop("metadata", UNSET)
        metadata: EventExportRequestMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = EventExportRequestMetadata.from_dict(_metadata)

        def _parse_ip_pool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ip_pool = _parse_ip_pool(d.pop("ip_pool", UNSET))

        def _parse_ip(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ip = _parse_ip(d.pop("ip", UNSET))

        format_ = cast(Literal["csv"] | Unset, d.pop("format", UNSET))
        if format_ != "csv" and not isinstance(format_, Unset):
            raise ValueError(f"format must match const 'csv', got '{format_}'")

        event_export_request = cls(
            since=since,
            until=until,
            event=event,
            recipient=recipient,
            tag=tag,
            message_id=message_id,
            metadata=metadata,
            ip_pool=ip_pool,
            ip=ip,
            format_=format_,
        )

        return event_export_request
