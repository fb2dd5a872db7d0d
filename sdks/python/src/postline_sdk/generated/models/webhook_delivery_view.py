from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.delivery_status import DeliveryStatus
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.delivery_attempt_view import DeliveryAttemptView


T = TypeVar("T", bound="WebhookDeliveryView")


@_attrs_define
class WebhookDeliveryView:
    """One delivery of one event to one endpoint (or a message's webhook_url), with its attempts.
    The payload itself is not shown.

        Attributes:
            id (str):
            endpoint_id (None | str): Null for a message's own webhook_url.
            url (str):
            event_id (str):
            event (str): The event type.
            message_id (str):
            status (DeliveryStatus):
            manual (bool): True for a resend: one attempt, never retried.
            resent_from (None | str): The delivery this one resent; null unless a resend.
            created_at (datetime.datetime):
            next_attempt_at (datetime.datetime | None): When the next scheduled attempt is due, while retrying.
            attempts (list[DeliveryAttemptView]):
    """

    id: str
    endpoint_id: None | str
    url: str
    event_id: str
    event: str
    message_id: str
    status: DeliveryStatus
    manual: bool
    resent_from: None | str
    created_at: datetime.datetime
    next_attempt_at: datetime.datetime | None
    attempts: list[DeliveryAttemptView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_attempt_view import DeliveryAttemptView  # noqa: PLC0415

        id = self.id

        endpoint_id: None | str
        endpoint_id = self.endpoint_id

        url = self.url

        event_id = self.event_id

        event = self.event

        message_id = self.message_id

        status = self.status.value

        manual = self.manual

        resent_from: None | str
        resent_from = self.resent_from

        created_at = self.created_at.isoformat()

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "endpoint_id": endpoint_id,
                "url": url,
                "event_id": event_id,
                "event": event,
                "message_id": message_id,
                "status": status,
                "manual": manual,
                "resent_from": resent_from,
                "created_at": created_at,
                "next_attempt_at": next_attempt_at,
                "attempts": attempts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_attempt_view import DeliveryAttemptView  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        def _parse_endpoint_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endpoint_id = _parse_endpoint_id(d.pop("endpoint_id"))

        url = d.pop("url")

        event_id = d.pop("event_id")

        event = d.pop("event")

        message_id = d.pop("message_id")

        status = DeliveryStatus(d.pop("status"))

        manual = d.pop("manual")

        def _parse_resent_from(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        resent_from = _parse_resent_from(d.pop("resent_from"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = DeliveryAttemptView.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        webhook_delivery_view = cls(
            id=id,
            endpoint_id=endpoint_id,
            url=url,
            event_id=event_id,
            event=event,
            message_id=message_id,
            status=status,
            manual=manual,
            resent_from=resent_from,
            created_at=created_at,
            next_attempt_at=next_attempt_at,
            attempts=attempts,
        )

        webhook_delivery_view.additional_properties = d
        return webhook_delivery_view

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
