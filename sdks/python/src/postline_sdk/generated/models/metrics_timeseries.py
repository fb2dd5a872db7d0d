from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.metrics_timeseries_group_by_type_0 import MetricsTimeseriesGroupByType0
from ..models.metrics_timeseries_resolution import MetricsTimeseriesResolution
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.metrics_data_point import MetricsDataPoint
    from ..models.metrics_group import MetricsGroup
    from ..models.period import Period


T = TypeVar("T", bound="MetricsTimeseries")


@_attrs_define
class MetricsTimeseries:
    """
    Attributes:
        data (list[MetricsDataPoint]): Every bucket of the window, idle ones included.
        resolution (MetricsTimeseriesResolution):
        data_as_of (datetime.datetime):
        timezone (str):
        period (Period):
        group_by (MetricsTimeseriesGroupByType0 | None):
        groups (list[MetricsGroup] | None | Unset): Present when group_by is set.
    """

    data: list[MetricsDataPoint]
    resolution: MetricsTimeseriesResolution
    data_as_of: datetime.datetime
    timezone: str
    period: Period
    group_by: MetricsTimeseriesGroupByType0 | None
    groups: list[MetricsGroup] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.metrics_data_point import MetricsDataPoint  # noqa: PLC0415
        from ..models.metrics_group import MetricsGroup  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        resolution = self.resolution.value

        data_as_of = self.data_as_of.isoformat()

        timezone = self.timezone

        period = self.period.to_dict()

        group_by: None | str
        if isinstance(self.group_by, MetricsTimeseriesGroupByType0):
            group_by = self.group_by.value
        else:
            group_by = self.group_by

        groups: list[dict[str, Any]] | None | Unset
        if isinstance(self.groups, Unset):
            groups = UNSET
        elif isinstance(self.groups, list):
            groups = []
            for groups_type_0_item_data in self.groups:
                groups_type_0_item = groups_type_0_item_data.to_dict()
                groups.append(groups_type_0_item)

        else:
            groups = self.groups

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "resolution": resolution,
                "data_as_of": data_as_of,
                "timezone": timezone,
                "period": period,
                "group_by": group_by,
            }
        )
        if groups is not UNSET:
            field_dict["groups"] = groups

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.metrics_data_point import MetricsDataPoint  # noqa: PLC0415
        from ..models.metrics_group import MetricsGroup  # noqa: PLC0415
        from ..models.period import Period  # noqa: PLC0415

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = MetricsDataPoint.from_dict(data_item_data)

            data.append(data_item)

        resolution = MetricsTimeseriesResolution(d.pop("resolution"))

        data_as_of = datetime.datetime.fromisoformat(d.pop("data_as_of"))

        timezone = d.pop("timezone")

        period = Period.from_dict(d.pop("period"))

        def _parse_group_by(data: object) -> MetricsTimeseriesGroupByType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                group_by_type_0 = MetricsTimeseriesGroupByType0(data)

                return group_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MetricsTimeseriesGroupByType0 | None, data)

        group_by = _parse_group_by(d.pop("group_by"))

        def _parse_groups(data: object) -> list[MetricsGroup] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                groups_type_0 = []
                _groups_type_0 = data
                for groups_type_0_item_data in _groups_type_0:
                    groups_type_0_item = MetricsGroup.from_dict(groups_type_0_item_data)

                    groups_type_0.append(groups_type_0_item)

                return groups_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[MetricsGroup] | None | Unset, data)

        groups = _parse_groups(d.pop("groups", UNSET))

        metrics_timeseries = cls(
            data=data,
            resolution=resolution,
            data_as_of=data_as_of,
            timezone=timezone,
            period=period,
            group_by=group_by,
            groups=groups,
        )

        metrics_timeseries.additional_properties = d
        return metrics_timeseries

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
