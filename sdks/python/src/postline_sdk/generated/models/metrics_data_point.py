from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime


T = TypeVar("T", bound="MetricsDataPoint")


@_attrs_define
class MetricsDataPoint:
    """
    Attributes:
        timestamp (datetime.datetime): Bucket start, in the requested timezone.
        sent (int):
        delivered (int):
        bounced (int):
        complained (int):
        opened (int):
        clicked (int):
        unsubscribed (int):
        delayed (int):
        rejected (int):
        failed (int):
    """

    timestamp: datetime.datetime
    sent: int
    delivered: int
    bounced: int
    complained: int
    opened: int
    clicked: int
    unsubscribed: int
    delayed: int
    rejected: int
    failed: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        timestamp = self.timestamp.isoformat()

        sent = self.sent

        delivered = self.delivered

        bounced = self.bounced

        complained = self.complained

        opened = self.opened

        clicked = self.clicked

        unsubscribed = self.unsubscribed

        delayed = self.delayed

        rejected = self.rejected

        failed = self.failed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "timestamp": timestamp,
                "sent": sent,
                "delivered": delivered,
                "bounced": bounced,
                "complained": complained,
                "opened": opened,
                "clicked": clicked,
                "unsubscribed": unsubscribed,
                "delayed": delayed,
                "rejected": rejected,
                "failed": failed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        sent = d.pop("sent")

        delivered = d.pop("delivered")

        bounced = d.pop("bounced")

        complained = d.pop("complained")

        opened = d.pop("opened")

        clicked = d.pop("clicked")

        unsubscribed = d.pop("unsubscribed")

        delayed = d.pop("delayed")

        rejected = d.pop("rejected")

        failed = d.pop("failed")

        metrics_data_point = cls(
            timestamp=timestamp,
            sent=sent,
            delivered=delivered,
            bounced=bounced,
            complained=complained,
            opened=opened,
            clicked=clicked,
            unsubscribed=unsubscribed,
            delayed=delayed,
            rejected=rejected,
            failed=failed,
        )

        metrics_data_point.additional_properties = d
        return metrics_data_point

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
