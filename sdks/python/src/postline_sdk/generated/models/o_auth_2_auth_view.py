from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast


T = TypeVar("T", bound="OAuth2AuthView")


@_attrs_define
class OAuth2AuthView:
    """
    Attributes:
        token_url (str):
        client_id (str):
        client_secret (str): Redacted.
        scope (None | str):
        audience (None | str):
        mode (Literal['oauth2'] | Unset):  Default: 'oauth2'.
    """

    token_url: str
    client_id: str
    client_secret: str
    scope: None | str
    audience: None | str
    mode: Literal["oauth2"] | Unset = "oauth2"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token_url = self.token_url

        client_id = self.client_id

        client_secret = self.client_secret

        scope: None | str
        scope = self.scope

        audience: None | str
        audience = self.audience

        mode = self.mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "token_url": token_url,
                "client_id": client_id,
                "client_secret": client_secret,
                "scope": scope,
                "audience": audience,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        token_url = d.pop("token_url")

        client_id = d.pop("client_id")

        client_secret = d.pop("client_secret")

        def _parse_scope(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        scope = _parse_scope(d.pop("scope"))

        def _parse_audience(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        audience = _parse_audience(d.pop("audience"))

        mode = cast(Literal["oauth2"] | Unset, d.pop("mode", UNSET))
        if mode != "oauth2" and not isinstance(mode, Unset):
            raise ValueError(f"mode must match const 'oauth2', got '{mode}'")

        o_auth_2_auth_view = cls(
            token_url=token_url,
            client_id=client_id,
            client_secret=client_secret,
            scope=scope,
            audience=audience,
            mode=mode,
        )

        o_auth_2_auth_view.additional_properties = d
        return o_auth_2_auth_view

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
