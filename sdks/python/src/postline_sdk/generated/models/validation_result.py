from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.recommendation import Recommendation
from ..models.risk import Risk
from ..models.verification_result import VerificationResult
from typing import cast

if TYPE_CHECKING:
    from ..models.activity import Activity


T = TypeVar("T", bound="ValidationResult")


@_attrs_define
class ValidationResult:
    """
    Attributes:
        verification_id (None | str):
        address (str): As submitted.
        is_valid (bool):
        result (VerificationResult):
        status (VerificationResult):
        sub_status (str): Why, in one word: failed_syntax_check, mailbox_not_found, accept_all, ...
        recommendation (Recommendation):
        confidence (float):
        risk (Risk):
        reason (str):
        did_you_mean (None | str):
        account (str): The local part.
        domain (str):
        mx_provider (None | str):
        mx_record (None | str):
        mx_found (bool):
        is_catch_all (bool):
        is_disposable (bool):
        is_role_address (bool):
        is_free_provider (bool):
        smtp_check (bool | None): The mailbox answered RCPT TO: true accepted, false refused, null unknown.
        domain_age_days (int | None):
        activity (Activity): The account's own history with the address, from its events (not shown by the spec beyond
            clicked).
    """

    verification_id: None | str
    address: str
    is_valid: bool
    result: VerificationResult
    status: VerificationResult
    sub_status: str
    recommendation: Recommendation
    confidence: float
    risk: Risk
    reason: str
    did_you_mean: None | str
    account: str
    domain: str
    mx_provider: None | str
    mx_record: None | str
    mx_found: bool
    is_catch_all: bool
    is_disposable: bool
    is_role_address: bool
    is_free_provider: bool
    smtp_check: bool | None
    domain_age_days: int | None
    activity: Activity
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.activity import Activity  # noqa: PLC0415

        verification_id: None | str
        verification_id = self.verification_id

        address = self.address

        is_valid = self.is_valid

        result = self.result.value

        status = self.status.value

        sub_status = self.sub_status

        recommendation = self.recommendation.value

        confidence = self.confidence

        risk = self.risk.value

        reason = self.reason

        did_you_mean: None | str
        did_you_mean = self.did_you_mean

        account = self.account

        domain = self.domain

        mx_provider: None | str
        mx_provider = self.mx_provider

        mx_record: None | str
        mx_record = self.mx_record

        mx_found = self.mx_found

        is_catch_all = self.is_catch_all

        is_disposable = self.is_disposable

        is_role_address = self.is_role_address

        is_free_provider = self.is_free_provider

        smtp_check: bool | None
        smtp_check = self.smtp_check

        domain_age_days: int | None
        domain_age_days = self.domain_age_days

        activity = self.activity.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "verification_id": verification_id,
                "address": address,
                "is_valid": is_valid,
                "result": result,
                "status": status,
                "sub_status": sub_status,
                "recommendation": recommendation,
                "confidence": confidence,
                "risk": risk,
                "reason": reason,
                "did_you_mean": did_you_mean,
                "account": account,
                "domain": domain,
                "mx_provider": mx_provider,
                "mx_record": mx_record,
                "mx_found": mx_found,
                "is_catch_all": is_catch_all,
                "is_disposable": is_disposable,
                "is_role_address": is_role_address,
                "is_free_provider": is_free_provider,
                "smtp_check": smtp_check,
                "domain_age_days": domain_age_days,
                "activity": activity,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.activity import Activity  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_verification_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        verification_id = _parse_verification_id(d.pop("verification_id"))

        address = d.pop("address")

        is_valid = d.pop("is_valid")

        result = VerificationResult(d.pop("result"))

        status = VerificationResult(d.pop("status"))

        sub_status = d.pop("sub_status")

        recommendation = Recommendation(d.pop("recommendation"))

        confidence = d.pop("confidence")

        risk = Risk(d.pop("risk"))

        reason = d.pop("reason")

        def _parse_did_you_mean(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        did_you_mean = _parse_did_you_mean(d.pop("did_you_mean"))

        account = d.pop("account")

        domain = d.pop("domain")

        def _parse_mx_provider(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        mx_provider = _parse_mx_provider(d.pop("mx_provider"))

        def _parse_mx_record(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        mx_record = _parse_mx_record(d.pop("mx_record"))

        mx_found = d.pop("mx_found")

        is_catch_all = d.pop("is_catch_all")

        is_disposable = d.pop("is_disposable")

        is_role_address = d.pop("is_role_address")

        is_free_provider = d.pop("is_free_provider")

        def _parse_smtp_check(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        smtp_check = _parse_smtp_check(d.pop("smtp_check"))

        def _parse_domain_age_days(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        domain_age_days = _parse_domain_age_days(d.pop("domain_age_days"))

        activity = Activity.from_dict(d.pop("activity"))

        validation_result = cls(
            verification_id=verification_id,
            address=address,
            is_valid=is_valid,
            result=result,
            status=status,
            sub_status=sub_status,
            recommendation=recommendation,
            confidence=confidence,
            risk=risk,
            reason=reason,
            did_you_mean=did_you_mean,
            account=account,
            domain=domain,
            mx_provider=mx_provider,
            mx_record=mx_record,
            mx_found=mx_found,
            is_catch_all=is_catch_all,
            is_disposable=is_disposable,
            is_role_address=is_role_address,
            is_free_provider=is_free_provider,
            smtp_check=smtp_check,
            domain_age_days=domain_age_days,
            activity=activity,
        )

        validation_result.additional_properties = d
        return validation_result

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
