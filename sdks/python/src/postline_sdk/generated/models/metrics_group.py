from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.metrics_data_point import MetricsDataPoint


T = TypeVar("T", bound="MetricsGroup")


@_attrs_define
class MetricsGroup:
    """
    Attributes:
        key (str):
        data (list[MetricsDataPoint]): The group's non-idle buckets.
    """

    key: str
    data: list[MetricsDataPoint]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.metrics_data_point import MetricsDataPoint  # noqa: PLC0415

        key = self.key

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.metrics_data_point import MetricsDataPoint  # noqa: PLC0415

        d = dict(src_dict)
        key = d.pop("key")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = MetricsDataPoint.from_dict(data_item_data)

            data.append(data_item)

        metrics_group = cls(
            key=key,
            data=data,
        )

        metrics_group.additional_properties = d
        return metrics_group

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
