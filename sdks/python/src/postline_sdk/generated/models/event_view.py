from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_type import EventType
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.event_view_metadata_type_0 import EventViewMetadataType0


T = TypeVar("T", bound="EventView")


@_attrs_define
class EventView:
    """An event as GET /v3/events lists it.

    Attributes:
        id (str):
        type_ (EventType):
        message_id (str):
        recipient (None | str):
        timestamp (datetime.datetime):
        tags (list[str]):
        metadata (EventViewMetadataType0 | None): The metadata attached at send merged with the event's provider details
            (bounce reason, smtp_response, clicked url, user_agent, retry_count, test, ...); a key attached at send wins
            over a provider detail of the same name. Null when both are empty.
        created_at (datetime.datetime):
    """

    id: str
    type_: EventType
    message_id: str
    recipient: None | str
    timestamp: datetime.datetime
    tags: list[str]
    metadata: EventViewMetadataType0 | None
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.event_view_metadata_type_0 import EventViewMetadataType0  # noqa: PLC0415

        id = self.id

        type_ = self.type_.value

        message_id = self.message_id

        recipient: None | str
        recipient = self.recipient

        timestamp = self.timestamp.isoformat()

        tags = self.tags

        metadata: dict[str, Any] | None
        if isinstance(self.metadata, EventViewMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "message_id": message_id,
                "recipient": recipient,
                "timestamp": timestamp,
                "tags": tags,
                "metadata": metadata,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_view_metadata_type_0 import EventViewMetadataType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = EventType(d.pop("type"))

        message_id = d.pop("message_id")

        def _parse_recipient(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        recipient = _parse_recipient(d.pop("recipient"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        tags = cast(list[str], d.pop("tags"))

        def _parse_metadata(data: object) -> EventViewMetadataType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = EventViewMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventViewMetadataType0 | None, data)

        metadata = _parse_metadata(d.pop("metadata"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event_view = cls(
            id=id,
            type_=type_,
            message_id=message_id,
            recipient=recipient,
            timestamp=timestamp,
            tags=tags,
            metadata=metadata,
            created_at=created_at,
        )

        event_view.additional_properties = d
        return event_view

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
