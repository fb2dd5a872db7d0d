from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.comparison import Comparison
    from ..models.delivery_metrics import DeliveryMetrics
    from ..models.engagement_metrics import EngagementMetrics
    from ..models.latency_breakdown import LatencyBreakdown
    from ..models.period import Period


T = TypeVar("T", bound="MetricsSummary")


@_attrs_define
class MetricsSummary:
    """
    Attributes:
        data_as_of (datetime.datetime): When the roll-ups were read; events reach them within seconds.
        period (Period):
        timezone (str):
        delivery (DeliveryMetrics):
        engagement (EngagementMetrics):
        latency (LatencyBreakdown):
        comparison (Comparison | None | Unset): The previous window of equal length; present with
            compare=previous_period.
    """

    data_as_of: datetime.datetime
    period: Period
    timezone: str
    delivery: DeliveryMetrics
    engagement: EngagementMetrics
    latency: LatencyBreakdown
    comparison: Comparison | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.comparison import Comparison  # noqa: PLC0415
        from ..models.delivery_metrics import DeliveryMetrics  # noqa: PLC0415
        from ..models.engagement_metrics import EngagementMetrics  # noqa: PLC0415
        from ..models.latency_breakdown import LatencyBreakdown  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        data_as_of = self.data_as_of.isoformat()

        period = self.period.to_dict()

        timezone = self.timezone

        delivery = self.delivery.to_dict()

        engagement = self.engagement.to_dict()

        latency = self.latency.to_dict()

        comparison: dict[str, Any] | None | Unset
        if isinstance(self.comparison, Unset):
            comparison = UNSET
        elif isinstance(self.comparison, Comparison):
            comparison = self.comparison.to_dict()
        else:
            comparison = self.comparison

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data_as_of": data_as_of,
                "period": period,
                "timezone": timezone,
                "delivery": delivery,
                "engagement": engagement,
                "latency": latency,
            }
        )
        if comparison is not UNSET:
            field_dict["comparison"] = comparison

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.comparison import Comparison  # noqa: PLC0415
        from ..models.delivery_metrics import DeliveryMetrics  # noqa: PLC0415
        from ..models.engagement_metrics import EngagementMetrics  # noqa: PLC0415
        from ..models.latency_breakdown import LatencyBreakdown  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        d = dict(src_dict)
        data_as_of = datetime.datetime.fromisoformat(d.pop("data_as_of"))

        period = Period.from_dict(d.pop("period"))

        timezone = d.pop("timezone")

        delivery = DeliveryMetrics.from_dict(d.pop("delivery"))

        engagement = EngagementMetrics.from_dict(d.pop("engagement"))

        latency = LatencyBreakdown.from_dict(d.pop("latency"))

        def _parse_comparison(data: object) -> Comparison | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                comparison_type_0 = Comparison.from_dict(data)

                return comparison_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Comparison | None | Unset, data)

        comparison = _parse_comparison(d.pop("comparison", UNSET))

        metrics_summary = cls(
            data_as_of=data_as_of,
            period=period,
            timezone=timezone,
            delivery=delivery,
            engagement=engagement,
            latency=latency,
            comparison=comparison,
        )

        metrics_summary.additional_properties = d
        return metrics_summary

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
