from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.message_status import MessageStatus
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.content_check import ContentCheck
    from ..models.message_view_headers import MessageViewHeaders


T = TypeVar("T", bound="MessageView")


@_attrs_define
class MessageView:
    """A message as GET /v3/messages/{id} returns it.

    Attributes:
        id (str):
        status (MessageStatus):
        from_ (str):
        to (list[str]):
        subject (str):
        tags (list[str]):
        headers (MessageViewHeaders):
        created_at (datetime.datetime):
        send_at (datetime.datetime | None):
        delivered_at (datetime.datetime | None):
        opened_at (datetime.datetime | None):
        clicked_at (datetime.datetime | None):
        content_check (ContentCheck | None | Unset): a test-mode message's content check, once delivered (GET
            .../content has it too)
    """

    id: str
    status: MessageStatus
    from_: str
    to: list[str]
    subject: str
    tags: list[str]
    headers: MessageViewHeaders
    created_at: datetime.datetime
    send_at: datetime.datetime | None
    delivered_at: datetime.datetime | None
    opened_at: datetime.datetime | None
    clicked_at: datetime.datetime | None
    content_check: ContentCheck | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.content_check import ContentCheck  # noqa: PLC0415
        from ..models.message_view_headers import MessageViewHeaders  # noqa: PLC0415

        id = self.id

        status = self.status.value

        from_ = self.from_

        to = self.to

        subject = self.subject

        tags = self.tags

        headers = self.headers.to_dict()

        created_at = self.created_at.isoformat()

        send_at: None | str
        if isinstance(self.send_at, datetime.datetime):
            send_at = self.send_at.isoformat()
        else:
            send_at = self.send_at

        delivered_at: None | str
        if isinstance(self.delivered_at, datetime.datetime):
            delivered_at = self.delivered_at.isoformat()
        else:
            delivered_at = self.delivered_at

        opened_at: None | str
        if isinstance(self.opened_at, datetime.datetime):
            opened_at = self.opened_at.isoformat()
        else:
            opened_at = self.opened_at

        clicked_at: None | str
        if isinstance(self.clicked_at, datetime.datetime):
            clicked_at = self.clicked_at.isoformat()
        else:
            clicked_at = self.clicked_at

        content_check: dict[str, Any] | None | Unset
        if isinstance(self.content_check, Unset):
            content_check = UNSET
        elif isinstance(self.content_check, ContentCheck):
            content_check = self.content_check.to_dict()
        else:
            content_check = self.content_check

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "from": from_,
                "to": to,
                "subject": subject,
                "tags": tags,
                "headers": headers,
                "created_at": created_at,
                "send_at": send_at,
                "delivered_at": delivered_at,
                "opened_at": opened_at,
                "clicked_at": clicked_at,
            }
        )
        if content_check is not UNSET:
            field_dict["content_check"] = content_check

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.content_check import ContentCheck  # noqa: PLC0415
        from ..models.message_view_headers import MessageViewHeaders  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        status = MessageStatus(d.pop("status"))

        from_ = d.pop("from")

        to = cast(list[str], d.pop("to"))

        subject = d.pop("subject")

        tags = cast(list[str], d.pop("tags"))

        headers = MessageViewHeaders.from_dict(d.pop("headers"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_send_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                send_at_type_0 = datetime.datetime.fromisoformat(data)

                return send_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        send_at = _parse_send_at(d.pop("send_at"))

        def _parse_delivered_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                delivered_at_type_0 = datetime.datetime.fromisoformat(data)

                return delivered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at"))

        def _parse_opened_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                opened_at_type_0 = datetime.datetime.fromisoformat(data)

                return opened_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        opened_at = _parse_opened_at(d.pop("opened_at"))

        def _parse_clicked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                clicked_at_type_0 = datetime.datetime.fromisoformat(data)

                return clicked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        clicked_at = _parse_clicked_at(d.pop("clicked_at"))

        def _parse_content_check(data: object) -> ContentCheck | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                content_check_type_0 = ContentCheck.from_dict(data)

                return content_check_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContentCheck | None | Unset, data)

        content_check = _parse_content_check(d.pop("content_check", UNSET))

        message_view = cls(
            id=id,
            status=status,
            from_=from_,
            to=to,
            subject=subject,
            tags=tags,
            headers=headers,
            created_at=created_at,
            send_at=send_at,
            delivered_at=delivered_at,
            opened_at=opened_at,
            clicked_at=clicked_at,
            content_check=content_check,
        )

        message_view.additional_properties = d
        return message_view

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
