from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.bounce_breakdown import BounceBreakdown


T = TypeVar("T", bound="DeliveryMetrics")


@_attrs_define
class DeliveryMetrics:
    """
    Attributes:
        sent (int): Messages handed to a recipient's MX (delivered or bounced afterwards).
        delivered (int):
        bounced (int):
        bounces (BounceBreakdown):
        complained (int):
        delayed (int):
        rejected (int):
        failed (int):
        delivery_rate (float | None): delivered/sent; 0-1; null when the denominator is 0.
        bounce_rate (float | None): bounced/sent; 0-1; null when the denominator is 0.
        complaint_rate (float | None): complained/sent; 0-1; null when the denominator is 0.
    """

    sent: int
    delivered: int
    bounced: int
    bounces: BounceBreakdown
    complained: int
    delayed: int
    rejected: int
    failed: int
    delivery_rate: float | None
    bounce_rate: float | None
    complaint_rate: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.bounce_breakdown import BounceBreakdown  # noqa: PLC0415

        sent = self.sent

        delivered = self.delivered

        bounced = self.bounced

        bounces = self.bounces.to_dict()

        complained = self.complained

        delayed = self.delayed

        rejected = self.rejected

        failed = self.failed

        delivery_rate: float | None
        delivery_rate = self.delivery_rate

        bounce_rate: float | None
        bounce_rate = self.bounce_rate

        complaint_rate: float | None
        complaint_rate = self.complaint_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sent": sent,
                "delivered": delivered,
                "bounced": bounced,
                "bounces": bounces,
                "complained": complained,
                "delayed": delayed,
                "rejected": rejected,
                "failed": failed,
                "delivery_rate": delivery_rate,
                "bounce_rate": bounce_rate,
                "complaint_rate": complaint_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bounce_breakdown import BounceBreakdown  # noqa: PLC0415

        d = dict(src_dict)
        sent = d.pop("sent")

        delivered = d.pop("delivered")

        bounced = d.pop("bounced")

        bounces = BounceBreakdown.from_dict(d.pop("bounces"))

        complained = d.pop("complained")

        delayed = d.pop("delayed")

        rejected = d.pop("rejected")

        failed = d.pop("failed")

        def _parse_delivery_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        delivery_rate = _parse_delivery_rate(d.pop("delivery_rate"))

        def _parse_bounce_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        bounce_rate = _parse_bounce_rate(d.pop("bounce_rate"))

        def _parse_complaint_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        complaint_rate = _parse_complaint_rate(d.pop("complaint_rate"))

        delivery_metrics = cls(
            sent=sent,
            delivered=delivered,
            bounced=bounced,
            bounces=bounces,
            complained=complained,
            delayed=delayed,
            rejected=rejected,
            failed=failed,
            delivery_rate=delivery_rate,
            bounce_rate=bounce_rate,
            complaint_rate=complaint_rate,
        )

        delivery_metrics.additional_properties = d
        return delivery_metrics

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
