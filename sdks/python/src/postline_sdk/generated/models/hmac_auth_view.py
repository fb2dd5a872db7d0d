from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast
import datetime


T = TypeVar("T", bound="HmacAuthView")


@_attrs_define
class HmacAuthView:
    """
    Attributes:
        header (str):
        key_id (str): whsec_ + the secret's last 4 characters, as sent in X-Svc-Key-Id.
        previous_key_id (None | str): The rotated-out secret, valid until previous_expires_at.
        previous_expires_at (datetime.datetime | None):
        mode (Literal['hmac'] | Unset):  Default: 'hmac'.
    """

    header: str
    key_id: str
    previous_key_id: None | str
    previous_expires_at: datetime.datetime | None
    mode: Literal["hmac"] | Unset = "hmac"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        header = self.header

        key_id = self.key_id

        previous_key_id: None | str
        previous_key_id = self.previous_key_id

        previous_expires_at: None | str
        if isinstance(self.previous_expires_at, datetime.datetime):
            previous_expires_at = self.previous_expires_at.isoformat()
        else:
            previous_expires_at = self.previous_expires_at

        mode = self.mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "header": header,
                "key_id": key_id,
                "previous_key_id": previous_key_id,
                "previous_expires_at": previous_expires_at,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        header = d.pop("header")

        key_id = d.pop("key_id")

        def _parse_previous_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        previous_key_id = _parse_previous_key_id(d.pop("previous_key_id"))

        def _parse_previous_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return previous_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        previous_expires_at = _parse_previous_expires_at(d.pop("previous_expires_at"))

        mode = cast(Literal["hmac"] | Unset, d.pop("mode", UNSET))
        if mode != "hmac" and not isinstance(mode, Unset):
            raise ValueError(f"mode must match const 'hmac', got '{mode}'")

        hmac_auth_view = cls(
            header=header,
            key_id=key_id,
            previous_key_id=previous_key_id,
            previous_expires_at=previous_expires_at,
            mode=mode,
        )

        hmac_auth_view.additional_properties = d
        return hmac_auth_view

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
