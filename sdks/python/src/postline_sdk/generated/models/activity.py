from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime


T = TypeVar("T", bound="Activity")


@_attrs_define
class Activity:
    """The account's own history with the address, from its events (not shown by the spec beyond clicked).

    Attributes:
        seen (bool | Unset):  Default: False.
        first_seen_at (datetime.datetime | None | Unset):
        last_seen_at (datetime.datetime | None | Unset):
        total_sends (int | Unset):  Default: 0.
        delivered (int | Unset):  Default: 0.
        bounced (int | Unset):  Default: 0.
        opened (int | Unset):  Default: 0.
        clicked (int | Unset):  Default: 0.
        complained (int | Unset):  Default: 0.
        unsubscribed (int | Unset):  Default: 0.
    """

    seen: bool | Unset = False
    first_seen_at: datetime.datetime | None | Unset = UNSET
    last_seen_at: datetime.datetime | None | Unset = UNSET
    total_sends: int | Unset = 0
    delivered: int | Unset = 0
    bounced: int | Unset = 0
    opened: int | Unset = 0
    clicked: int | Unset = 0
    complained: int | Unset = 0
    unsubscribed: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seen = self.seen

        first_seen_at: None | str | Unset
        if isinstance(self.first_seen_at, Unset):
            first_seen_at = UNSET
        elif isinstance(self.first_seen_at, datetime.datetime):
            first_seen_at = self.first_seen_at.isoformat()
        else:
            first_seen_at = self.first_seen_at

        last_seen_at: None | str | Unset
        if isinstance(self.last_seen_at, Unset):
            last_seen_at = UNSET
        elif isinstance(self.last_seen_at, datetime.datetime):
            last_seen_at = self.last_seen_at.isoformat()
        else:
            last_seen_at = self.last_seen_at

        total_sends = self.total_sends

        delivered = self.delivered

        bounced = self.bounced

        opened = self.opened

        clicked = self.clicked

        complained = self.complained

        unsubscribed = self.unsubscribed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if seen is not UNSET:
            field_dict["seen"] = seen
        if first_seen_at is not UNSET:
            field_dict["first_seen_at"] = first_seen_at
        if last_seen_at is not UNSET:
            field_dict["last_seen_at"] = last_seen_at
        if total_sends is not UNSET:
            field_dict["total_sends"] = total_sends
        if delivered is not UNSET:
            field_dict["delivered"] = delivered
        if bounced is not UNSET:
            field_dict["bounced"] = bounced
        if opened is not UNSET:
            field_dict["opened"] = opened
        if clicked is not UNSET:
            field_dict["clicked"] = clicked
        if complained is not UNSET:
            field_dict["complained"] = complained
        if unsubscribed is not UNSET:
            field_dict["unsubscribed"] = unsubscribed

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        seen = d.pop("seen", UNSET)

        def _parse_first_seen_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                first_seen_at_type_0 = datetime.datetime.fromisoformat(data)

                return first_seen_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        first_seen_at = _parse_first_seen_at(d.pop("first_seen_at", UNSET))

        def _parse_last_seen_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_seen_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_seen_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_seen_at = _parse_last_seen_at(d.pop("last_seen_at", UNSET))

        total_sends = d.pop("total_sends", UNSET)

        delivered = d.pop("delivered", UNSET)

        bounced = d.pop("bounced", UNSET)

        opened = d.pop("opened", UNSET)

        clicked = d.pop("clicked", UNSET)

        complained = d.pop("complained", UNSET)

        unsubscribed = d.pop("unsubscribed", UNSET)

        activity = cls(
            seen=seen,
            first_seen_at=first_seen_at,
            last_seen_at=last_seen_at,
            total_sends=total_sends,
            delivered=delivered,
            bounced=bounced,
            opened=opened,
            clicked=clicked,
            complained=complained,
            unsubscribed=unsubscribed,
        )

        activity.additional_properties = d
        return activity

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
