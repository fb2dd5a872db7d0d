from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.trend_point import TrendPoint


T = TypeVar("T", bound="BreakdownRow")


@_attrs_define
class BreakdownRow:
    """
    Attributes:
        key (str):
        label (None | str):
        sent (int):
        delivered (int):
        bounced (int):
        complained (int):
        opened (int):
        clicked (int):
        unique_opens (int):
        unique_clicks (int):
        failed (int):
        delivery_rate (float | None):
        bounce_rate (float | None):
        complaint_rate (float | None):
        open_rate (float | None):
        click_rate (float | None):
        trend (list[TrendPoint] | None | Unset): The sort metric per day of the window; present with include_trend=true.
    """

    key: str
    label: None | str
    sent: int
    delivered: int
    bounced: int
    complained: int
    opened: int
    clicked: int
    unique_opens: int
    unique_clicks: int
    failed: int
    delivery_rate: float | None
    bounce_rate: float | None
    complaint_rate: float | None
    open_rate: float | None
    click_rate: float | None
    trend: list[TrendPoint] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.trend_point import TrendPoint  # noqa: PLC0415

        key = self.key

        label: None | str
        label = self.label

        sent = self.sent

        delivered = self.delivered

        bounced = self.bounced

        complained = self.complained

        opened = self.opened

        clicked = self.clicked

        unique_opens = self.unique_opens

        unique_clicks = self.unique_clicks

        failed = self.failed

        delivery_rate: float | None
        delivery_rate = self.delivery_rate

        bounce_rate: float | None
        bounce_rate = self.bounce_rate

        complaint_rate: float | None
        complaint_rate = self.complaint_rate

        open_rate: float | None
        open_rate = self.open_rate

        click_rate: float | None
        click_rate = self.click_rate

        trend: list[dict[str, Any]] | None | Unset
        if isinstance(self.trend, Unset):
            trend = UNSET
        elif isinstance(self.trend, list):
            trend = []
            for trend_type_0_item_data in self.trend:
                trend_type_0_item = trend_type_0_item_data.to_dict()
                trend.append(trend_type_0_item)

        else:
            trend = self.trend

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
                "label": label,
                "sent": sent,
                "delivered": delivered,
                "bounced": bounced,
                "complained": complained,
                "opened": opened,
                "clicked": clicked,
                "unique_opens": unique_opens,
                "unique_clicks": unique_clicks,
                "failed": failed,
                "delivery_rate": delivery_rate,
                "bounce_rate": bounce_rate,
                "complaint_rate": complaint_rate,
                "open_rate": open_rate,
                "click_rate": click_rate,
            }
        )
        if trend is not UNSET:
            field_dict["trend"] = trend

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.trend_point import TrendPoint  # noqa: PLC0415

        d = dict(src_dict)
        key = d.pop("key")

        def _parse_label(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        label = _parse_label(d.pop("label"))

        sent = d.pop("sent")

        delivered = d.pop("delivered")

        bounced = d.pop("bounced")

        complained = d.pop("complained")

        opened = d.pop("opened")

        clicked = d.pop("clicked")

        unique_opens = d.pop("unique_opens")

        unique_clicks = d.pop("unique_clicks")

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

        def _parse_open_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        open_rate = _parse_open_rate(d.pop("open_rate"))

        def _parse_click_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        click_rate = _parse_click_rate(d.pop("click_rate"))

        def _parse_trend(data: object) -> list[TrendPoint] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                trend_type_0 = []
                _trend_type_0 = data
                for trend_type_0_item_data in _trend_type_0:
                    trend_type_0_item = TrendPoint.from_dict(trend_type_0_item_data)

                    trend_type_0.append(trend_type_0_item)

                return trend_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TrendPoint] | None | Unset, data)

        trend = _parse_trend(d.pop("trend", UNSET))

        breakdown_row = cls(
            key=key,
            label=label,
            sent=sent,
            delivered=delivered,
            bounced=bounced,
            complained=complained,
            opened=opened,
            clicked=clicked,
            unique_opens=unique_opens,
            unique_clicks=unique_clicks,
            failed=failed,
            delivery_rate=delivery_rate,
            bounce_rate=bounce_rate,
            complaint_rate=complaint_rate,
            open_rate=open_rate,
            click_rate=click_rate,
            trend=trend,
        )

        breakdown_row.additional_properties = d
        return breakdown_row

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
