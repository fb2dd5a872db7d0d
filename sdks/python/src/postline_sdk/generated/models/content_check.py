from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.verdict import Verdict
from typing import cast

if TYPE_CHECKING:
    from ..models.part import Part


T = TypeVar("T", bound="ContentCheck")


@_attrs_define
class ContentCheck:
    """What POST /v3/messages/check answers, and what a test-mode message carries.

    Attributes:
        score (int):
        verdict (Verdict):
        parts (list[Part]):
    """

    score: int
    verdict: Verdict
    parts: list[Part]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.part import Part  # noqa: PLC0415

        score = self.score

        verdict = self.verdict.value

        parts = []
        for parts_item_data in self.parts:
            parts_item = parts_item_data.to_dict()
            parts.append(parts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "score": score,
                "verdict": verdict,
                "parts": parts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.part import Part  # noqa: PLC0415

        d = dict(src_dict)
        score = d.pop("score")

        verdict = Verdict(d.pop("verdict"))

        parts = []
        _parts = d.pop("parts")
        for parts_item_data in _parts:
            parts_item = Part.from_dict(parts_item_data)

            parts.append(parts_item)

        content_check = cls(
            score=score,
            verdict=verdict,
            parts=parts,
        )

        content_check.additional_properties = d
        return content_check

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
