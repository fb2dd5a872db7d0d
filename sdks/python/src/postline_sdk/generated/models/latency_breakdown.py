from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.percentiles import Percentiles


T = TypeVar("T", bound="LatencyBreakdown")


@_attrs_define
class LatencyBreakdown:
    """
    Attributes:
        processing (Percentiles):
        delivery (Percentiles):
        total (Percentiles):
    """

    processing: Percentiles
    delivery: Percentiles
    total: Percentiles
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.percentiles import Percentiles  # noqa: PLC0415

        processing = self.processing.to_dict()

        delivery = self.delivery.to_dict()

        total = self.total.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "processing": processing,
                "delivery": delivery,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.percentiles import Percentiles  # noqa: PLC0415

        d = dict(src_dict)
        processing = Percentiles.from_dict(d.pop("processing"))

        delivery = Percentiles.from_dict(d.pop("delivery"))

        total = Percentiles.from_dict(d.pop("total"))

        latency_breakdown = cls(
            processing=processing,
            delivery=delivery,
            total=total,
        )

        latency_breakdown.additional_properties = d
        return latency_breakdown

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
