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
    from ..models.message_accepted_headers import MessageAcceptedHeaders


T = TypeVar("T", bound="MessageAccepted")


@_attrs_define
class MessageAccepted:
    """202 of POST /v3/messages: id, status (always queued), created_at, and the echoes.

    Attributes:
        id (str):
        created_at (datetime.datetime):
        from_ (str):
        to (list[str]):
        tags (list[str]):
        headers (MessageAcceptedHeaders):
        status (MessageStatus | Unset):
    """

    id: str
    created_at: datetime.datetime
    from_: str
    to: list[str]
    tags: list[str]
    headers: MessageAcceptedHeaders
    status: MessageStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.message_accepted_headers import MessageAcceptedHeaders  # noqa: PLC0415

        id = self.id

        created_at = self.created_at.isoformat()

        from_ = self.from_

        to = self.to

        tags = self.tags

        headers = self.headers.to_dict()

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "created_at": created_at,
                "from": from_,
                "to": to,
                "tags": tags,
                "headers": headers,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_accepted_headers import MessageAcceptedHeaders  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        from_ = d.pop("from")

        to = cast(list[str], d.pop("to"))

        tags = cast(list[str], d.pop("tags"))

        headers = MessageAcceptedHeaders.from_dict(d.pop("headers"))

        _status = d.pop("status", UNSET)
        status: MessageStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = MessageStatus(_status)

        message_accepted = cls(
            id=id,
            created_at=created_at,
            from_=from_,
            to=to,
            tags=tags,
            headers=headers,
            status=status,
        )

        message_accepted.additional_properties = d
        return message_accepted

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
