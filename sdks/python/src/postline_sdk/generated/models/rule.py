from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.status import Status
from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="Rule")


@_attrs_define
class Rule:
    """One rule of a part: what it found and, unless it passed, the one-line fix.

    Attributes:
        id (str):
        status (Status):
        detail (str):
        fix (None | str | Unset):
        points (float | None | Unset):
    """

    id: str
    status: Status
    detail: str
    fix: None | str | Unset = UNSET
    points: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status = self.status.value

        detail = self.detail

        fix: None | str | Unset
        if isinstance(self.fix, Unset):
            fix = UNSET
        else:
            fix = self.fix

        points: float | None | Unset
        if isinstance(self.points, Unset):
            points = UNSET
        else:
            points = self.points

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "detail": detail,
            }
        )
        if fix is not UNSET:
            field_dict["fix"] = fix
        if points is not UNSET:
            field_dict["points"] = points

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        status = Status(d.pop("status"))

        detail = d.pop("detail")

        def _parse_fix(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fix = _parse_fix(d.pop("fix", UNSET))

        def _parse_points(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        points = _parse_points(d.pop("points", UNSET))

        rule = cls(
            id=id,
            status=status,
            detail=detail,
            fix=fix,
            points=points,
        )

        rule.additional_properties = d
        return rule

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
