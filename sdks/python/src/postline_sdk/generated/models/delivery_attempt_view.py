from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.attempt_result import AttemptResult
from typing import cast
import datetime


T = TypeVar("T", bound="DeliveryAttemptView")


@_attrs_define
class DeliveryAttemptView:
    """
    Attributes:
        number (int): 1 for the first attempt; X-Webhook-Attempt carried this number.
        at (datetime.datetime):
        outcome (AttemptResult):
        response_code (int | None): The receiver's HTTP status; null when there was no answer.
        latency_ms (int):
        error (None | str): What went wrong when there was no usable answer.
    """

    number: int
    at: datetime.datetime
    outcome: AttemptResult
    response_code: int | None
    latency_ms: int
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        number = self.number

        at = self.at.isoformat()

        outcome = self.outcome.value

        response_code: int | None
        response_code = self.response_code

        latency_ms = self.latency_ms

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "number": number,
                "at": at,
                "outcome": outcome,
                "response_code": response_code,
                "latency_ms": latency_ms,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        number = d.pop("number")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        outcome = AttemptResult(d.pop("outcome"))

        def _parse_response_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_code = _parse_response_code(d.pop("response_code"))

        latency_ms = d.pop("latency_ms")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        delivery_attempt_view = cls(
            number=number,
            at=at,
            outcome=outcome,
            response_code=response_code,
            latency_ms=latency_ms,
            error=error,
        )

        delivery_attempt_view.additional_properties = d
        return delivery_attempt_view

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
