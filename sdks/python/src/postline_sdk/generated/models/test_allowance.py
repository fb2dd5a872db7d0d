from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.allowance import Allowance


T = TypeVar("T", bound="TestAllowance")


@_attrs_define
class TestAllowance:
    """Not shown by the spec: the free monthly allowance of test keys (the plan's test_allowance),
    which sends and verifications each draw from on their own counter; 429 when one runs out.

        Attributes:
            emails (Allowance): A monthly allowance: limit (null = unlimited), used, remaining (null when unlimited).
            verifications (Allowance): A monthly allowance: limit (null = unlimited), used, remaining (null when unlimited).
    """

    emails: Allowance
    verifications: Allowance
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.allowance import Allowance  # noqa: PLC0415

        emails = self.emails.to_dict()

        verifications = self.verifications.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "emails": emails,
                "verifications": verifications,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allowance import Allowance  # noqa: PLC0415

        d = dict(src_dict)
        emails = Allowance.from_dict(d.pop("emails"))

        verifications = Allowance.from_dict(d.pop("verifications"))

        test_allowance = cls(
            emails=emails,
            verifications=verifications,
        )

        test_allowance.additional_properties = d
        return test_allowance

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
