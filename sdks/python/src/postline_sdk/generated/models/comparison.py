from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.delivery_metrics import DeliveryMetrics
    from ..models.delta import Delta
    from ..models.engagement_metrics import EngagementMetrics
    from ..models.latency_breakdown import LatencyBreakdown
    from ..models.period import Period


T = TypeVar("T", bound="Comparison")


@_attrs_define
class Comparison:
    """
    Attributes:
        period (Period):
        delivery (DeliveryMetrics):
        engagement (EngagementMetrics):
        latency (LatencyBreakdown):
        delta (Delta):
    """

    period: Period
    delivery: DeliveryMetrics
    engagement: EngagementMetrics
    latency: LatencyBreakdown
    delta: Delta
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_metrics import DeliveryMetrics  # noqa: PLC0415
        from ..models.delta import Delta  # noqa: PLC0415
        from ..models.engagement_metrics import EngagementMetrics  # noqa: PLC0415
        from ..models.latency_breakdown import LatencyBreakdown  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        period = self.period.to_dict()

        delivery = self.delivery.to_dict()

        engagement = self.engagement.to_dict()

        latency = self.latency.to_dict()

        delta = self.delta.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "period": period,
                "delivery": delivery,
                "engagement": engagement,
                "latency": latency,
                "delta": delta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_metrics import DeliveryMetrics  # noqa: PLC0415
        from ..models.delta import Delta  # noqa: PLC0415
        from ..models.engagement_metrics import EngagementMetrics  # noqa: PLC0415
        from ..models.latency_breakdown import LatencyBreakdown  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        d = dict(src_dict)
        period = Period.from_dict(d.pop("period"))

        delivery = DeliveryMetrics.from_dict(d.pop("delivery"))

        engagement = EngagementMetrics.from_dict(d.pop("engagement"))

        latency = LatencyBreakdown.from_dict(d.pop("latency"))

        delta = Delta.from_dict(d.pop("delta"))

        comparison = cls(
            period=period,
            delivery=delivery,
            engagement=engagement,
            latency=latency,
            delta=delta,
        )

        comparison.additional_properties = d
        return comparison

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
