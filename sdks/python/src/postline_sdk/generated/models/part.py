from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.part_name import PartName
from ..models.status import Status
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.rule import Rule


T = TypeVar("T", bound="Part")


@_attrs_define
class Part:
    """
    Attributes:
        name (PartName):
        weight (int):
        status (Status):
        earned (float): weight x 1 (pass), 0.5 (warn) or 0 (fail); 0 when unavailable
        rules (list[Rule]):
        fix (None | str | Unset):
        spam_score (float | None | Unset):
        spam_threshold (float | None | Unset):
    """

    name: PartName
    weight: int
    status: Status
    earned: float
    rules: list[Rule]
    fix: None | str | Unset = UNSET
    spam_score: float | None | Unset = UNSET
    spam_threshold: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.rule import Rule  # noqa: PLC0415

        name = self.name.value

        weight = self.weight

        status = self.status.value

        earned = self.earned

        rules = []
        for rules_item_data in self.rules:
            rules_item = rules_item_data.to_dict()
            rules.append(rules_item)

        fix: None | str | Unset
        if isinstance(self.fix, Unset):
            fix = UNSET
        else:
            fix = self.fix

        spam_score: float | None | Unset
        if isinstance(self.spam_score, Unset):
            spam_score = UNSET
        else:
            spam_score = self.spam_score

        spam_threshold: float | None | Unset
        if isinstance(self.spam_threshold, Unset):
            spam_threshold = UNSET
        else:
            spam_threshold = self.spam_threshold

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "weight": weight,
                "status": status,
                "earned": earned,
                "rules": rules,
            }
        )
        if fix is not UNSET:
            field_dict["fix"] = fix
        if spam_score is not UNSET:
            field_dict["spam_score"] = spam_score
        if spam_threshold is not UNSET:
            field_dict["spam_threshold"] = spam_threshold

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rule import Rule  # noqa: PLC0415

        d = dict(src_dict)
        name = PartName(d.pop("name"))

        weight = d.pop("weight")

        status = Status(d.pop("status"))

        earned = d.pop("earned")

        rules = []
        _rules = d.pop("rules")
        for rules_item_data in _rules:
            rules_item = Rule.from_dict(rules_item_data)

            rules.append(rules_item)

        def _parse_fix(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fix = _parse_fix(d.pop("fix", UNSET))

        def _parse_spam_score(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        spam_score = _parse_spam_score(d.pop("spam_score", UNSET))

        def _parse_spam_threshold(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        spam_threshold = _parse_spam_threshold(d.pop("spam_threshold", UNSET))

        part = cls(
            name=name,
            weight=weight,
            status=status,
            earned=earned,
            rules=rules,
            fix=fix,
            spam_score=spam_score,
            spam_threshold=spam_threshold,
        )

        part.additional_properties = d
        return part

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
