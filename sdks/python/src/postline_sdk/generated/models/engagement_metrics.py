from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast


T = TypeVar("T", bound="EngagementMetrics")


@_attrs_define
class EngagementMetrics:
    """
    Attributes:
        opens (int): Opens; bot and prefetch traffic filtered at ingest.
        opens_direct (int): Opens not fetched through a mail provider's image proxy.
        unique_opens (int): Distinct message+recipient pairs first opened in the window.
        clicks (int):
        unique_clicks (int): Distinct message+recipient pairs first clicking in the window.
        unsubscribes (int):
        open_rate (float | None): unique_opens/delivered; 0-1; null when the denominator is 0.
        click_rate (float | None): unique_clicks/delivered; 0-1; null when the denominator is 0.
        unsubscribe_rate (float | None): unsubscribes/delivered; 0-1; null when the denominator is 0.
    """

    opens: int
    opens_direct: int
    unique_opens: int
    clicks: int
    unique_clicks: int
    unsubscribes: int
    open_rate: float | None
    click_rate: float | None
    unsubscribe_rate: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        opens = self.opens

        opens_direct = self.opens_direct

        unique_opens = self.unique_opens

        clicks = self.clicks

        unique_clicks = self.unique_clicks

        unsubscribes = self.unsubscribes

        open_rate: float | None
        open_rate = self.open_rate

        click_rate: float | None
        click_rate = self.click_rate

        unsubscribe_rate: float | None
        unsubscribe_rate = self.unsubscribe_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "opens": opens,
                "opens_direct": opens_direct,
                "unique_opens": unique_opens,
                "clicks": clicks,
                "unique_clicks": unique_clicks,
                "unsubscribes": unsubscribes,
                "open_rate": open_rate,
                "click_rate": click_rate,
                "unsubscribe_rate": unsubscribe_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        opens = d.pop("opens")

        opens_direct = d.pop("opens_direct")

        unique_opens = d.pop("unique_opens")

        clicks = d.pop("clicks")

        unique_clicks = d.pop("unique_clicks")

        unsubscribes = d.pop("unsubscribes")

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

        def _parse_unsubscribe_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        unsubscribe_rate = _parse_unsubscribe_rate(d.pop("unsubscribe_rate"))

        engagement_metrics = cls(
            opens=opens,
            opens_direct=opens_direct,
            unique_opens=unique_opens,
            clicks=clicks,
            unique_clicks=unique_clicks,
            unsubscribes=unsubscribes,
            open_rate=open_rate,
            click_rate=click_rate,
            unsubscribe_rate=unsubscribe_rate,
        )

        engagement_metrics.additional_properties = d
        return engagement_metrics

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
