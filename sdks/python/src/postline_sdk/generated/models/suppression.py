from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.suppression_source import SuppressionSource
from ..models.suppression_type import SuppressionType
from ..types import UNSET, Unset
from typing import cast
import datetime


T = TypeVar("T", bound="Suppression")


@_attrs_define
class Suppression:
    """
    Attributes:
        id (str):
        account_id (str):
        type_ (SuppressionType):
        email (str):
        created_at (datetime.datetime):
        reason (None | str | Unset):
        source (None | SuppressionSource | Unset):
        override_unsubscribes (bool | Unset):  Default: False.
    """

    id: str
    account_id: str
    type_: SuppressionType
    email: str
    created_at: datetime.datetime
    reason: None | str | Unset = UNSET
    source: None | SuppressionSource | Unset = UNSET
    override_unsubscribes: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        account_id = self.account_id

        type_ = self.type_.value

        email = self.email

        created_at = self.created_at.isoformat()

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        elif isinstance(self.source, SuppressionSource):
            source = self.source.value
        else:
            source = self.source

        override_unsubscribes = self.override_unsubscribes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "account_id": account_id,
                "type": type_,
                "email": email,
                "created_at": created_at,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if source is not UNSET:
            field_dict["source"] = source
        if override_unsubscribes is not UNSET:
            field_dict["override_unsubscribes"] = override_unsubscribes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        account_id = d.pop("account_id")

        type_ = SuppressionType(d.pop("type"))

        email = d.pop("email")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_source(data: object) -> None | SuppressionSource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                source_type_0 = SuppressionSource(data)

                return source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SuppressionSource | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        override_unsubscribes = d.pop("override_unsubscribes", UNSET)

        suppression = cls(
            id=id,
            account_id=account_id,
            type_=type_,
            email=email,
            created_at=created_at,
            reason=reason,
            source=source,
            override_unsubscribes=override_unsubscribes,
        )

        suppression.additional_properties = d
        return suppression

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
