from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.suppression_type import SuppressionType
from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="SuppressionCreate")


@_attrs_define
class SuppressionCreate:
    """
    Attributes:
        type_ (SuppressionType):
        email (str): Stored lowercased.
        reason (None | str | Unset):
        override_unsubscribes (bool | Unset): Allowlist entries only: the address is mailed even if it unsubscribed.
            Default: False.
    """

    type_: SuppressionType
    email: str
    reason: None | str | Unset = UNSET
    override_unsubscribes: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        email = self.email

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        override_unsubscribes = self.override_unsubscribes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "email": email,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if override_unsubscribes is not UNSET:
            field_dict["override_unsubscribes"] = override_unsubscribes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = SuppressionType(d.pop("type"))

        email = d.pop("email")

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        override_unsubscribes = d.pop("override_unsubscribes", UNSET)

        suppression_create = cls(
            type_=type_,
            email=email,
            reason=reason,
            override_unsubscribes=override_unsubscribes,
        )

        return suppression_create
