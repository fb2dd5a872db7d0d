from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.copy_source import CopySource
from typing import cast

if TYPE_CHECKING:
    from ..models.content_check import ContentCheck
    from ..models.recipient_copy import RecipientCopy


T = TypeVar("T", bound="MessageContent")


@_attrs_define
class MessageContent:
    """
    Attributes:
        id (str):
        test (bool):
        source (CopySource):
        check (ContentCheck | None): the content check of a test-mode message; null for a live one
        recipients (list[RecipientCopy]):
    """

    id: str
    test: bool
    source: CopySource
    check: ContentCheck | None
    recipients: list[RecipientCopy]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.content_check import ContentCheck  # noqa: PLC0415
        from ..models.recipient_copy import RecipientCopy  # noqa: PLC0415

        id = self.id

        test = self.test

        source = self.source.value

        check: dict[str, Any] | None
        if isinstance(self.check, ContentCheck):
            check = self.check.to_dict()
        else:
            check = self.check

        recipients = []
        for recipients_item_data in self.recipients:
            recipients_item = recipients_item_data.to_dict()
            recipients.append(recipients_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "test": test,
                "source": source,
                "check": check,
                "recipients": recipients,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.content_check import ContentCheck  # noqa: PLC0415
        from ..models.recipient_copy import RecipientCopy  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        test = d.pop("test")

        source = CopySource(d.pop("source"))

        def _parse_check(data: object) -> ContentCheck | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                check_type_0 = ContentCheck.from_dict(data)

                return check_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContentCheck | None, data)

        check = _parse_check(d.pop("check"))

        recipients = []
        _recipients = d.pop("recipients")
        for recipients_item_data in _recipients:
            recipients_item = RecipientCopy.from_dict(recipients_item_data)

            recipients.append(recipients_item)

        message_content = cls(
            id=id,
            test=test,
            source=source,
            check=check,
            recipients=recipients,
        )

        message_content.additional_properties = d
        return message_content

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
