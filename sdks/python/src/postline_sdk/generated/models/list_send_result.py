from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.list_send_status import ListSendStatus
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.failed_member import FailedMember


T = TypeVar("T", bound="ListSendResult")


@_attrs_define
class ListSendResult:
    """202 of POST /v3/messages (or /v3/messages.batch) to a list's address, and GET
    /v3/lists/{id}/sends/{send_id}: the fan-out's progress. Every member's message carries
    batch_id = list_send_id.

        Attributes:
            list_send_id (str):
            list_id (str):
            to (str): The list's address.
            status (ListSendStatus):
            members (int): Subscribed members read so far: accepted + suppressed + rejected + failed.
            accepted (int):
            suppressed (int):
            rejected (int):
            failed (int):
            created_at (datetime.datetime):
            list_send (bool | Unset): Always true: this send went to a mailing list. Default: True.
            failed_recipients (list[FailedMember] | None | Unset): The first 100 members no message could be made for.
            error_message (None | str | Unset):
            cancel_requested_at (datetime.datetime | None | Unset): When its sender cancelled it (DELETE
                /v3/lists/{id}/sends/{send_id}).
            completed_at (datetime.datetime | None | Unset):
    """

    list_send_id: str
    list_id: str
    to: str
    status: ListSendStatus
    members: int
    accepted: int
    suppressed: int
    rejected: int
    failed: int
    created_at: datetime.datetime
    list_send: bool | Unset = True
    failed_recipients: list[FailedMember] | None | Unset = UNSET
    error_message: None | str | Unset = UNSET
    cancel_requested_at: datetime.datetime | None | Unset = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.failed_member import FailedMember  # noqa: PLC0415

        list_send_id = self.list_send_id

        list_id = self.list_id

        to = self.to

        status = self.status.value

        members = self.members

        accepted = self.accepted

        suppressed = self.suppressed

        rejected = self.rejected

        failed = self.failed

        created_at = self.created_at.isoformat()

        list_send = self.list_send

        failed_recipients: list[dict[str, Any]] | None | Unset
        if isinstance(self.failed_recipients, Unset):
            failed_recipients = UNSET
        elif isinstance(self.failed_recipients, list):
            failed_recipients = []
            for failed_recipients_type_0_item_data in self.failed_recipients:
                failed_recipients_type_0_item = failed_recipients_type_0_item_data.to_dict()
                failed_recipients.append(failed_recipients_type_0_item)

        else:
            failed_recipients = self.failed_recipients

        error_message: None | str | Unset
        if isinstance(self.error_message, Unset):
            error_message = UNSET
        else:
            error_message = self.error_message

        cancel_requested_at: None | str | Unset
        if isinstance(self.cancel_requested_at, Unset):
            cancel_requested_at = UNSET
        elif isinstance(self.cancel_requested_at, datetime.datetime):
            cancel_requested_at = self.cancel_requested_at.isoformat()
        else:
            cancel_requested_at = self.cancel_requested_at

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "list_send_id": list_send_id,
                "list_id": list_id,
                "to": to,
                "status": status,
                "members": members,
                "accepted": accepted,
                "suppressed": suppressed,
                "rejected": rejected,
                "failed": failed,
                "created_at": created_at,
            }
        )
        if list_send is not UNSET:
            field_dict["list_send"] = list_send
        if failed_recipients is not UNSET:
            field_dict["failed_recipients"] = failed_recipients
        if error_message is not UNSET:
            field_dict["error_message"] = error_message
        if cancel_requested_at is not UNSET:
            field_dict["cancel_requested_at"] = cancel_requested_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.failed_member import FailedMember  # noqa: PLC0415

        d = dict(src_dict)
        list_send_id = d.pop("list_send_id")

        list_id = d.pop("list_id")

        to = d.pop("to")

        status = ListSendStatus(d.pop("status"))

        members = d.pop("members")

        accepted = d.pop("accepted")

        suppressed = d.pop("suppressed")

        rejected = d.pop("rejected")

        failed = d.pop("failed")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        list_send = d.pop("list_send", UNSET)

        def _parse_failed_recipients(data: object) -> list[FailedMember] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                failed_recipients_type_0 = []
                _failed_recipients_type_0 = data
                for failed_recipients_type_0_item_data in _failed_recipients_type_0:
                    failed_recipients_type_0_item = FailedMember.from_dict(failed_recipients_type_0_item_data)

                    failed_recipients_type_0.append(failed_recipients_type_0_item)

                return failed_recipients_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FailedMember] | None | Unset, data)

        failed_recipients = _parse_failed_recipients(d.pop("failed_recipients", UNSET))

        def _parse_error_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_message = _parse_error_message(d.pop("error_message", UNSET))

        def _parse_cancel_requested_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cancel_requested_at_type_0 = datetime.datetime.fromisoformat(data)

                return cancel_requested_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        cancel_requested_at = _parse_cancel_requested_at(d.pop("cancel_requested_at", UNSET))

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        list_send_result = cls(
            list_send_id=list_send_id,
            list_id=list_id,
            to=to,
            status=status,
            members=members,
            accepted=accepted,
            suppressed=suppressed,
            rejected=rejected,
            failed=failed,
            created_at=created_at,
            list_send=list_send,
            failed_recipients=failed_recipients,
            error_message=error_message,
            cancel_requested_at=cancel_requested_at,
            completed_at=completed_at,
        )

        list_send_result.additional_properties = d
        return list_send_result

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
