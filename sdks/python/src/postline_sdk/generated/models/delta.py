from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast


T = TypeVar("T", bound="Delta")


@_attrs_define
class Delta:
    """
    Attributes:
        sent_pct_change (float | None): Relative (0.5 = +50%); null when the previous value is 0.
        delivered_pct_change (float | None):
        bounced_pct_change (float | None):
        complained_pct_change (float | None):
        opens_pct_change (float | None):
        clicks_pct_change (float | None):
        delivery_rate_pp (float | None): Percentage points; null when either rate is null.
        bounce_rate_pp (float | None):
        complaint_rate_pp (float | None):
        open_rate_pp (float | None):
        click_rate_pp (float | None):
        unsubscribe_rate_pp (float | None):
    """

    sent_pct_change: float | None
    delivered_pct_change: float | None
    bounced_pct_change: float | None
    complained_pct_change: float | None
    opens_pct_change: float | None
    clicks_pct_change: float | None
    delivery_rate_pp: float | None
    bounce_rate_pp: float | None
    complaint_rate_pp: float | None
    open_rate_pp: float | None
    click_rate_pp: float | None
    unsubscribe_rate_pp: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        sent_pct_change: float | None
        sent_pct_change = self.sent_pct_change

        delivered_pct_change: float | None
        delivered_pct_change = self.delivered_pct_change

        bounced_pct_change: float | None
        bounced_pct_change = self.bounced_pct_change

        complained_pct_change: float | None
        complained_pct_change = self.complained_pct_change

        opens_pct_change: float | None
        opens_pct_change = self.opens_pct_change

        clicks_pct_change: float | None
        clicks_pct_change = self.clicks_pct_change

        delivery_rate_pp: float | None
        delivery_rate_pp = self.delivery_rate_pp

        bounce_rate_pp: float | None
        bounce_rate_pp = self.bounce_rate_pp

        complaint_rate_pp: float | None
        complaint_rate_pp = self.complaint_rate_pp

        open_rate_pp: float | None
        open_rate_pp = self.open_rate_pp

        click_rate_pp: float | None
        click_rate_pp = self.click_rate_pp

        unsubscribe_rate_pp: float | None
        unsubscribe_rate_pp = self.unsubscribe_rate_pp

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sent_pct_change": sent_pct_change,
                "delivered_pct_change": delivered_pct_change,
                "bounced_pct_change": bounced_pct_change,
                "complained_pct_change": complained_pct_change,
                "opens_pct_change": opens_pct_change,
                "clicks_pct_change": clicks_pct_change,
                "delivery_rate_pp": delivery_rate_pp,
                "bounce_rate_pp": bounce_rate_pp,
                "complaint_rate_pp": complaint_rate_pp,
                "open_rate_pp": open_rate_pp,
                "click_rate_pp": click_rate_pp,
                "unsubscribe_rate_pp": unsubscribe_rate_pp,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_sent_pct_change(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        sent_pct_change = _parse_sent_pct_change(d.pop("sent_pct_change"))

        def _parse_delivered_pct_change(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        delivered_pct_change = _parse_delivered_pct_change(d.pop("delivered_pct_change"))

        def _parse_bounced_pct_change(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        bounced_pct_change = _parse_bounced_pct_change(d.pop("bounced_pct_change"))

        def _parse_complained_pct_change(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        complained_pct_change = _parse_complained_pct_change(d.pop("complained_pct_change"))

        def _parse_opens_pct_change(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        opens_pct_change = _parse_opens_pct_change(d.pop("opens_pct_change"))

        def _parse_clicks_pct_change(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        clicks_pct_change = _parse_clicks_pct_change(d.pop("clicks_pct_change"))

        def _parse_delivery_rate_pp(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        delivery_rate_pp = _parse_delivery_rate_pp(d.pop("delivery_rate_pp"))

        def _parse_bounce_rate_pp(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        bounce_rate_pp = _parse_bounce_rate_pp(d.pop("bounce_rate_pp"))

        def _parse_complaint_rate_pp(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        complaint_rate_pp = _parse_complaint_rate_pp(d.pop("complaint_rate_pp"))

        def _parse_open_rate_pp(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        open_rate_pp = _parse_open_rate_pp(d.pop("open_rate_pp"))

        def _parse_click_rate_pp(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        click_rate_pp = _parse_click_rate_pp(d.pop("click_rate_pp"))

        def _parse_unsubscribe_rate_pp(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        unsubscribe_rate_pp = _parse_unsubscribe_rate_pp(d.pop("unsubscribe_rate_pp"))

        delta = cls(
            sent_pct_change=sent_pct_change,
            delivered_pct_change=delivered_pct_change,
            bounced_pct_change=bounced_pct_change,
            complained_pct_change=complained_pct_change,
            opens_pct_change=opens_pct_change,
            clicks_pct_change=clicks_pct_change,
            delivery_rate_pp=delivery_rate_pp,
            bounce_rate_pp=bounce_rate_pp,
            complaint_rate_pp=complaint_rate_pp,
            open_rate_pp=open_rate_pp,
            click_rate_pp=click_rate_pp,
            unsubscribe_rate_pp=unsubscribe_rate_pp,
        )

        delta.additional_properties = d
        return delta

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
