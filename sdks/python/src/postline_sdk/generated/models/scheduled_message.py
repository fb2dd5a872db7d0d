from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime


T = TypeVar("T", bound="ScheduledMessage")


@_attrs_define
class ScheduledMessage:
    """
    Attributes:
        id (str):
        from_ (str):
        to (list[str]):
        subject (str):
        tags (list[str]):
        send_at (datetime.datetime):
        created_at (datetime.datetime):
    """

    id: str
    from_: str
    to: list[str]
    subject: str
    tags: list[str]
    send_at: datetime.datetime
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        from_ = self.from_

        to = self.to

        subject = self.subject

        tags = self.tags

        send_at = self.send_at.isoformat()

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "from": from_,
                "to": to,
                "subject": subject,
                "tags": tags,
                "send_at": send_at,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        from_ = d.pop("from")

        to = cast(list[str], d.pop("to"))

        subject = d.pop("subject")

        tags = cast(list[str], d.pop("tags"))

        send_at = datetime.datetime.fromisoformat(d.pop("send_at"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        scheduled_message = cls(
            id=id,
            from_=from_,
            to=to,
            subject=subject,
            tags=tags,
            send_at=send_at,
            created_at=created_at,
        )

        scheduled_message.additional_properties = d
        return scheduled_message

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
