from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.rejected_recipient import RejectedRecipient


T = TypeVar("T", bound="BatchSendResult")


@_attrs_define
class BatchSendResult:
    """
    Attributes:
        batch_id (str):
        accepted (int):
        rejected (int):
        message_ids (list[str]):
        rejected_recipients (list[RejectedRecipient] | None | Unset):
    """

    batch_id: str
    accepted: int
    rejected: int
    message_ids: list[str]
    rejected_recipients: list[RejectedRecipient] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.rejected_recipient import RejectedRecipient  # noqa: PLC0415

        batch_id = self.batch_id

        accepted = self.accepted

        rejected = self.rejected

        message_ids = self.message_ids

        rejected_recipients: list[dict[str, Any]] | None | Unset
        if isinstance(self.rejected_recipients, Unset):
            rejected_recipients = UNSET
        elif isinstance(self.rejected_recipients, list):
            rejected_recipients = []
            for rejected_recipients_type_0_item_data in self.rejected_recipients:
                rejected_recipients_type_0_item = rejected_recipients_type_0_item_data.to_dict()
                rejected_recipients.append(rejected_recipients_type_0_item)

        else:
            rejected_recipients = self.rejected_recipients

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "batch_id": batch_id,
                "accepted": accepted,
                "rejected": rejected,
                "message_ids": message_ids,
            }
        )
        if rejected_recipients is not UNSET:
            field_dict["rejected_recipients"] = rejected_recipients

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rejected_recipient import RejectedRecipient  # noqa: PLC0415

        d = dict(src_dict)
        batch_id = d.pop("batch_id")

        accepted = d.pop("accepted")

        rejected = d.pop("rejected")

        message_ids = cast(list[str], d.pop("message_ids"))

        def _parse_rejected_recipients(data: object) -> list[RejectedRecipient] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                rejected_recipients_type_0 = []
                _rejected_recipients_type_0 = data
                for rejected_recipients_type_0_item_data in _rejected_recipients_type_0:
                    rejected_recipients_type_0_item = RejectedRecipient.from_dict(rejected_recipients_type_0_item_data)

                    rejected_recipients_type_0.append(rejected_recipients_type_0_item)

                return rejected_recipients_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RejectedRecipient] | None | Unset, data)

        rejected_recipients = _parse_rejected_recipients(d.pop("rejected_recipients", UNSET))

        batch_send_result = cls(
            batch_id=batch_id,
            accepted=accepted,
            rejected=rejected,
            message_ids=message_ids,
            rejected_recipients=rejected_recipients,
        )

        batch_send_result.additional_properties = d
        return batch_send_result

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
