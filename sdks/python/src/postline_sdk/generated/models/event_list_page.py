from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
    from ..models.event_view import EventView


T = TypeVar("T", bound="EventListPage")


@_attrs_define
class EventListPage:
    """A page of events: repeat with cursor=next_cursor until has_more is false.

    Attributes:
        items (list[EventView]):
        has_more (bool):
        next_cursor (None | str): Pass as cursor, with the same filters, for the next page; null on the last page.
        total_count (int): Every match of the filters, whatever the cursor.
    """

    items: list[EventView]
    has_more: bool
    next_cursor: None | str
    total_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.event_view import EventView  # noqa: PLC0415

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        has_more = self.has_more

        next_cursor: None | str
        next_cursor = self.next_cursor

        total_count = self.total_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "items": items,
                "has_more": has_more,
                "next_cursor": next_cursor,
                "total_count": total_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_view import EventView  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = EventView.from_dict(items_item_data)

            items.append(items_item)

        has_more = d.pop("has_more")

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        total_count = d.pop("total_count")

        event_list_page = cls(
            items=items,
            has_more=has_more,
            next_cursor=next_cursor,
            total_count=total_count,
        )

        event_list_page.additional_properties = d
        return event_list_page

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
