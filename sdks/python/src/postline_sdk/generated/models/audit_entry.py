from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.actor_type import ActorType
from ..types import UNSET, Unset
from typing import cast
import datetime


T = TypeVar("T", bound="AuditEntry")


@_attrs_define
class AuditEntry:
    """
    Attributes:
        id (str):
        actor_type (ActorType):
        action (str):
        created_at (datetime.datetime):
        account_id (None | str | Unset):
        actor_id (None | str | Unset):
        actor_email (None | str | Unset):
        target (None | str | Unset):
        details (None | str | Unset):
        ip_address (None | str | Unset):
    """

    id: str
    actor_type: ActorType
    action: str
    created_at: datetime.datetime
    account_id: None | str | Unset = UNSET
    actor_id: None | str | Unset = UNSET
    actor_email: None | str | Unset = UNSET
    target: None | str | Unset = UNSET
    details: None | str | Unset = UNSET
    ip_address: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        actor_type = self.actor_type.value

        action = self.action

        created_at = self.created_at.isoformat()

        account_id: None | str | Unset
        if isinstance(self.account_id, Unset):
            account_id = UNSET
        else:
            account_id = self.account_id

        actor_id: None | str | Unset
        if isinstance(self.actor_id, Unset):
            actor_id = UNSET
        else:
            actor_id = self.actor_id

        actor_email: None | str | Unset
        if isinstance(self.actor_email, Unset):
            actor_email = UNSET
        else:
            actor_email = self.actor_email

        target: None | str | Unset
        if isinstance(self.target, Unset):
            target = UNSET
        else:
            target = self.target

        details: None | str | Unset
        if isinstance(self.details, Unset):
            details = UNSET
        else:
            details = self.details

        ip_address: None | str | Unset
        if isinstance(self.ip_address, Unset):
            ip_address = UNSET
        else:
            ip_address = self.ip_address

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "actor_type": actor_type,
                "action": action,
                "created_at": created_at,
            }
        )
        if account_id is not UNSET:
            field_dict["account_id"] = account_id
        if actor_id is not UNSET:
            field_dict["actor_id"] = actor_id
        if actor_email is not UNSET:
            field_dict["actor_email"] = actor_email
        if target is not UNSET:
            field_dict["target"] = target
        if details is not UNSET:
            field_dict["details"] = details
        if ip_address is not UNSET:
            field_dict["ip_address"] = ip_address

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        actor_type = ActorType(d.pop("actor_type"))

        action = d.pop("action")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_account_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        account_id = _parse_account_id(d.pop("account_id", UNSET))

        def _parse_actor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        actor_id = _parse_actor_id(d.pop("actor_id", UNSET))

        def _parse_actor_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        actor_email = _parse_actor_email(d.pop("actor_email", UNSET))

        def _parse_target(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        target = _parse_target(d.pop("target", UNSET))

        def _parse_details(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        details = _parse_details(d.pop("details", UNSET))

        def _parse_ip_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ip_address = _parse_ip_address(d.pop("ip_address", UNSET))

        audit_entry = cls(
            id=id,
            actor_type=actor_type,
            action=action,
            created_at=created_at,
            account_id=account_id,
            actor_id=actor_id,
            actor_email=actor_email,
            target=target,
            details=details,
            ip_address=ip_address,
        )

        audit_entry.additional_properties = d
        return audit_entry

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
