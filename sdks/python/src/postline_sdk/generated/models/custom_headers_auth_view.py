from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
    from ..models.custom_headers_auth_view_headers import CustomHeadersAuthViewHeaders


T = TypeVar("T", bound="CustomHeadersAuthView")


@_attrs_define
class CustomHeadersAuthView:
    """
    Attributes:
        headers (CustomHeadersAuthViewHeaders): Header names with redacted values.
        mode (Literal['custom_headers'] | Unset):  Default: 'custom_headers'.
    """

    headers: CustomHeadersAuthViewHeaders
    mode: Literal["custom_headers"] | Unset = "custom_headers"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.custom_headers_auth_view_headers import CustomHeadersAuthViewHeaders  # noqa: PLC0415

        headers = self.headers.to_dict()

        mode = self.mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "headers": headers,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.custom_headers_auth_view_headers import CustomHeadersAuthViewHeaders  # noqa: PLC0415

        d = dict(src_dict)
        headers = CustomHeadersAuthViewHeaders.from_dict(d.pop("headers"))

        mode = cast(Literal["custom_headers"] | Unset, d.pop("mode", UNSET))
        if mode != "custom_headers" and not isinstance(mode, Unset):
            raise ValueError(f"mode must match const 'custom_headers', got '{mode}'")

        custom_headers_auth_view = cls(
            headers=headers,
            mode=mode,
        )

        custom_headers_auth_view.additional_properties = d
        return custom_headers_auth_view

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
