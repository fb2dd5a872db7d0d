from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.breakdown_row import BreakdownRow
    from ..models.period import Period


T = TypeVar("T", bound="MetricsBreakdown")


@_attrs_define
class MetricsBreakdown:
    """
    Attributes:
        data_as_of (datetime.datetime):
        dimension (str):
        period (Period):
        timezone (str):
        sort (str):
        total (int): Distinct values of the dimension in the window, before the limit.
        data (list[BreakdownRow]):
    """

    data_as_of: datetime.datetime
    dimension: str
    period: Period
    timezone: str
    sort: str
    total: int
    data: list[BreakdownRow]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.breakdown_row import BreakdownRow  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        data_as_of = self.data_as_of.isoformat()

        dimension = self.dimension

        period = self.period.to_dict()

        timezone = self.timezone

        sort = self.sort

        total = self.total

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data_as_of": data_as_of,
                "dimension": dimension,
                "period": period,
                "timezone": timezone,
                "sort": sort,
                "total": total,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.breakdown_row import BreakdownRow  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        d = dict(src_dict)
        data_as_of = datetime.datetime.fromisoformat(d.pop("data_as_of"))

        dimension = d.pop("dimension")

        period = Period.from_dict(d.pop("period"))

        timezone = d.pop("timezone")

        sort = d.pop("sort")

        total = d.pop("total")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = BreakdownRow.from_dict(data_item_data)

            data.append(data_item)

        metrics_breakdown = cls(
            data_as_of=data_as_of,
            dimension=dimension,
            period=period,
            timezone=timezone,
            sort=sort,
            total=total,
            data=data,
        )

        metrics_breakdown.additional_properties = d
        return metrics_breakdown

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
