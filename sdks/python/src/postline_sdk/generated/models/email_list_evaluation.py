from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.evaluation_recommendation import EvaluationRecommendation
from typing import cast

if TYPE_CHECKING:
    from ..models.share import Share


T = TypeVar("T", bound="EmailListEvaluation")


@_attrs_define
class EmailListEvaluation:
    """
    Attributes:
        total_count (int):
        unique_count (int):
        duplicate_count (int):
        syntax_errors (Share):
        disposable (Share):
        role_based (Share):
        free_provider (Share):
        typo_detected (Share):
        quality_score (int):
        estimated_deliverable_pct (float):
        recommendation (EvaluationRecommendation):
        sample_size (int): Distinct addresses read; less than unique_count when sampled.
        margin_of_error_pct (float): 95% margin of each percentage, in points; 0 when not sampled.
    """

    total_count: int
    unique_count: int
    duplicate_count: int
    syntax_errors: Share
    disposable: Share
    role_based: Share
    free_provider: Share
    typo_detected: Share
    quality_score: int
    estimated_deliverable_pct: float
    recommendation: EvaluationRecommendation
    sample_size: int
    margin_of_error_pct: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.share import Share  # noqa: PLC0415

        total_count = self.total_count

        unique_count = self.unique_count

        duplicate_count = self.duplicate_count

        syntax_errors = self.syntax_errors.to_dict()

        disposable = self.disposable.to_dict()

        role_based = self.role_based.to_dict()

        free_provider = self.free_provider.to_dict()

        typo_detected = self.typo_detected.to_dict()

        quality_score = self.quality_score

        estimated_deliverable_pct = self.estimated_deliverable_pct

        recommendation = self.recommendation.value

        sample_size = self.sample_size

        margin_of_error_pct = self.margin_of_error_pct

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "total_count": total_count,
                "unique_count": unique_count,
                "duplicate_count": duplicate_count,
                "syntax_errors": syntax_errors,
                "disposable": disposable,
                "role_based": role_based,
                "free_provider": free_provider,
                "typo_detected": typo_detected,
                "quality_score": quality_score,
                "estimated_deliverable_pct": estimated_deliverable_pct,
                "recommendation": recommendation,
                "sample_size": sample_size,
                "margin_of_error_pct": margin_of_error_pct,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.share import Share  # noqa: PLC0415

        d = dict(src_dict)
        total_count = d.pop("total_count")

        unique_count = d.pop("unique_count")

        duplicate_count = d.pop("duplicate_count")

        syntax_errors = Share.from_dict(d.pop("syntax_errors"))

        disposable = Share.from_dict(d.pop("disposable"))

        role_based = Share.from_dict(d.pop("role_based"))

        free_provider = Share.from_dict(d.pop("free_provider"))

        typo_detected = Share.from_dict(d.pop("typo_detected"))

        quality_score = d.pop("quality_score")

        estimated_deliverable_pct = d.pop("estimated_deliverable_pct")

        recommendation = EvaluationRecommendation(d.pop("recommendation"))

        sample_size = d.pop("sample_size")

        margin_of_error_pct = d.pop("margin_of_error_pct")

        email_list_evaluation = cls(
            total_count=total_count,
            unique_count=unique_count,
            duplicate_count=duplicate_count,
            syntax_errors=syntax_errors,
            disposable=disposable,
            role_based=role_based,
            free_provider=free_provider,
            typo_detected=typo_detected,
            quality_score=quality_score,
            estimated_deliverable_pct=estimated_deliverable_pct,
            recommendation=recommendation,
            sample_size=sample_size,
            margin_of_error_pct=margin_of_error_pct,
        )

        email_list_evaluation.additional_properties = d
        return email_list_evaluation

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
