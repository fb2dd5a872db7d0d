from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.suppression_type import SuppressionType
from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="SuppressionExportRequest")


@_attrs_define
class SuppressionExportRequest:
    """POST /v3/suppressions/export: one list, or every list when `type` is left out.

    Attributes:
        type_ (None | SuppressionType | Unset):
    """

    type_: None | SuppressionType | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        elif isinstance(self.type_, SuppressionType):
            type_ = self.type_.value
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_type_(data: object) -> None | SuppressionType | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_0 = SuppressionType(data)

                return type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SuppressionType | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        suppression_export_request = cls(
            type_=type_,
        )

        return suppression_export_request
