from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_type import EventType
from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="SampleRequest")


@_attrs_define
class SampleRequest:
    """
    Attributes:
        event (EventType | None | Unset): The event type to send; default: the first type the endpoint subscribes to.
    """

    event: EventType | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        event: None | str | Unset
        if isinstance(self.event, Unset):
            event = UNSET
        elif isinstance(self.event, EventType):
            event = self.event.value
        else:
            event = self.event

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if event is not UNSET:
            field_dict["event"] = event

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_event(data: object) -> EventType | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                event_type_0 = EventType(data)

                return event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventType | None | Unset, data)

        event = _parse_event(d.pop("event", UNSET))

        sample_request = cls(
            event=event,
        )

        return sample_request
