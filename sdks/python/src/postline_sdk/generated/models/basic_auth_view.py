from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import Literal, cast


T = TypeVar("T", bound="BasicAuthView")


@_attrs_define
class BasicAuthView:
    """
    Attributes:
        username (str):
        password (str): Redacted.
        mode (Literal['basic'] | Unset):  Default: 'basic'.
    """

    username: str
    password: str
    mode: Literal["basic"] | Unset = "basic"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        username = self.username

        password = self.password

        mode = self.mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "username": username,
                "password": password,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        username = d.pop("username")

        password = d.pop("password")

        mode = cast(Literal["basic"] | Unset, d.pop("mode", UNSET))
        if mode != "basic" and not isinstance(mode, Unset):
            raise ValueError(f"mode must match const 'basic', got '{mode}'")

        basic_auth_view = cls(
            username=username,
            password=password,
            mode=mode,
        )

        basic_auth_view.additional_properties = d
        return basic_auth_view

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
