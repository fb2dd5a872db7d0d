from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset


T = TypeVar("T", bound="RemovalCounts")


@_attrs_define
class RemovalCounts:
    """What a removal erased (the spec's counts). Adding two is what a resumed step does.

    Attributes:
        messages (int | Unset):  Default: 0.
        events (int | Unset):  Default: 0.
        verifications (int | Unset):  Default: 0.
        upload_downloads (int | Unset):  Default: 0.
        dek_tombstoned (int | Unset):  Default: 0.
        body_deks_destroyed (int | Unset):  Default: 0.
        exports_purged (int | Unset):  Default: 0.
        already_erased (bool | Unset):  Default: False.
    """

    messages: int | Unset = 0
    events: int | Unset = 0
    verifications: int | Unset = 0
    upload_downloads: int | Unset = 0
    dek_tombstoned: int | Unset = 0
    body_deks_destroyed: int | Unset = 0
    exports_purged: int | Unset = 0
    already_erased: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        messages = self.messages

        events = self.events

        verifications = self.verifications

        upload_downloads = self.upload_downloads

        dek_tombstoned = self.dek_tombstoned

        body_deks_destroyed = self.body_deks_destroyed

        exports_purged = self.exports_purged

        already_erased = self.already_erased

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if messages is not UNSET:
            field_dict["messages"] = messages
        if events is not UNSET:
            field_dict["events"] = events
        if verifications is not UNSET:
            field_dict["verifications"] = verifications
        if upload_downloads is not UNSET:
            field_dict["upload_downloads"] = upload_downloads
        if dek_tombstoned is not UNSET:
            field_dict["dek_tombstoned"] = dek_tombstoned
        if body_deks_destroyed is not UNSET:
            field_dict["body_deks_destroyed"] = body_deks_destroyed
        if exports_purged is not UNSET:
            field_dict["exports_purged"] = exports_purged
        if already_erased is not UNSET:
            field_dict["already_erased"] = already_erased

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        messages = d.pop("messages", UNSET)

        events = d.pop("events", UNSET)

        verifications = d.pop("verifications", UNSET)

        upload_downloads = d.pop("upload_downloads", UNSET)

        dek_tombstoned = d.pop("dek_tombstoned", UNSET)

        body_deks_destroyed = d.pop("body_deks_destroyed", UNSET)

        exports_purged = d.pop("exports_purged", UNSET)

        already_erased = d.pop("already_erased", UNSET)

        removal_counts = cls(
            messages=messages,
            events=events,
            verifications=verifications,
            upload_downloads=upload_downloads,
            dek_tombstoned=dek_tombstoned,
            body_deks_destroyed=body_deks_destroyed,
            exports_purged=exports_purged,
            already_erased=already_erased,
        )

        removal_counts.additional_properties = d
        return removal_counts

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
