from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast


T = TypeVar("T", bound="BounceBreakdown")


@_attrs_define
class BounceBreakdown:
    """
    Attributes:
        hard (int):
        soft (int):
        suppressed (int):
        undetermined (int):
        hard_rate (float | None): hard/sent; 0-1; null when the denominator is 0.
        soft_rate (float | None): soft/sent; 0-1; null when the denominator is 0.
        suppressed_rate (float | None): suppressed/sent; 0-1; null when the denominator is 0.
        undetermined_rate (float | None): undetermined/sent; 0-1; null when the denominator is 0.
    """

    hard: int
    soft: int
    suppressed: int
    undetermined: int
    hard_rate: float | None
    soft_rate: float | None
    suppressed_rate: float | None
    undetermined_rate: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hard = self.hard

        soft = self.soft

        suppressed = self.suppressed

        undetermined = self.undetermined

        hard_rate: float | None
        hard_rate = self.hard_rate

        soft_rate: float | None
        soft_rate = self.soft_rate

        suppressed_rate: float | None
        suppressed_rate = self.suppressed_rate

        undetermined_rate: float | None
        undetermined_rate = self.undetermined_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hard": hard,
                "soft": soft,
                "suppressed": suppressed,
                "undetermined": undetermined,
                "hard_rate": hard_rate,
                "soft_rate": soft_rate,
                "suppressed_rate": suppressed_rate,
                "undetermined_rate": undetermined_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        hard = d.pop("hard")

        soft = d.pop("soft")

        suppressed = d.pop("suppressed")

        undetermined = d.pop("undetermined")

        def _parse_hard_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        hard_rate = _parse_hard_rate(d.pop("hard_rate"))

        def _parse_soft_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        soft_rate = _parse_soft_rate(d.pop("soft_rate"))

        def _parse_suppressed_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        suppressed_rate = _parse_suppressed_rate(d.pop("suppressed_rate"))

        def _parse_undetermined_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        undetermined_rate = _parse_undetermined_rate(d.pop("undetermined_rate"))

        bounce_breakdown = cls(
            hard=hard,
            soft=soft,
            suppressed=suppressed,
            undetermined=undetermined,
            hard_rate=hard_rate,
            soft_rate=soft_rate,
            suppressed_rate=suppressed_rate,
            undetermined_rate=undetermined_rate,
        )

        bounce_breakdown.additional_properties = d
        return bounce_breakdown

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
