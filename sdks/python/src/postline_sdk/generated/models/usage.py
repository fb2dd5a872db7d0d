from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.plan import Plan
from ..models.quota_source import QuotaSource
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.billing_period import BillingPeriod
    from ..models.daily_quota import DailyQuota
    from ..models.email_quota import EmailQuota
    from ..models.payg_credits import PaygCredits
    from ..models.test_allowance import TestAllowance
    from ..models.verify_credits import VerifyCredits


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """
    Attributes:
        plan (Plan):
        quota_source (QuotaSource):
        period (BillingPeriod):
        emails (EmailQuota):
        daily (DailyQuota | None):
        verify_credits (VerifyCredits): Not shown by the spec: the month's verification credits of live keys, like
            emails.
        test_allowance (TestAllowance): Not shown by the spec: the free monthly allowance of test keys (the plan's
            test_allowance),
            which sends and verifications each draw from on their own counter; 429 when one runs out.
        rate_limit_per_minute (int | None):
        payg_credits (None | PaygCredits | Unset):
    """

    plan: Plan
    quota_source: QuotaSource
    period: BillingPeriod
    emails: EmailQuota
    daily: DailyQuota | None
    verify_credits: VerifyCredits
    test_allowance: TestAllowance
    rate_limit_per_minute: int | None
    payg_credits: None | PaygCredits | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.billing_period import BillingPeriod  # noqa: PLC0415
        from ..models.daily_quota import DailyQuota  # noqa: PLC0415
        from ..models.email_quota import EmailQuota  # noqa: PLC0415
        from ..models.payg_credits import PaygCredits  # noqa: PLC0415
        from ..models.test_allowance import TestAllowance  # noqa: PLC0415
        from ..models.verify_credits import VerifyCredits  # noqa: PLC0415

        plan = self.plan.value

        quota_source = self.quota_source.value

        period = self.period.to_dict()

        emails = self.emails.to_dict()

        daily: dict[str, Any] | None
        if isinstance(self.daily, DailyQuota):
            daily = self.daily.to_dict()
        else:
            daily = self.daily

        verify_credits = self.verify_credits.to_dict()

        test_allowance = self.test_allowance.to_dict()

        rate_limit_per_minute: int | None
        rate_limit_per_minute = self.rate_limit_per_minute

        payg_credits: dict[str, Any] | None | Unset
        if isinstance(self.payg_credits, Unset):
            payg_credits = UNSET
        elif isinstance(self.payg_credits, PaygCredits):
            payg_credits = self.payg_credits.to_dict()
        else:
            payg_credits = self.payg_credits

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "plan": plan,
                "quota_source": quota_source,
                "period": period,
                "emails": emails,
                "daily": daily,
                "verify_credits": verify_credits,
                "test_allowance": test_allowance,
                "rate_limit_per_minute": rate_limit_per_minute,
            }
        )
        if payg_credits is not UNSET:
            field_dict["payg_credits"] = payg_credits

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.billing_period import BillingPeriod  # noqa: PLC0415
        from ..models.daily_quota import DailyQuota  # noqa: PLC0415
        from ..models.email_quota import EmailQuota  # noqa: PLC0415
        from ..models.payg_credits import PaygCredits  # noqa: PLC0415
        from ..models.test_allowance import TestAllowance  # noqa: PLC0415
        from ..models.verify_credits import VerifyCredits  # noqa: PLC0415

        d = dict(src_dict)
        plan = Plan(d.pop("plan"))

        quota_source = QuotaSource(d.pop("quota_source"))

        period = BillingPeriod.from_dict(d.pop("period"))

        emails = EmailQuota.from_dict(d.pop("emails"))

        def _parse_daily(data: object) -> DailyQuota | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                daily_type_0 = DailyQuota.from_dict(data)

                return daily_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DailyQuota | None, data)

        daily = _parse_daily(d.pop("daily"))

        verify_credits = VerifyCredits.from_dict(d.pop("verify_credits"))

        test_allowance = TestAllowance.from_dict(d.pop("test_allowance"))

        def _parse_rate_limit_per_minute(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        rate_limit_per_minute = _parse_rate_limit_per_minute(d.pop("rate_limit_per_minute"))

        def _parse_payg_credits(data: object) -> None | PaygCredits | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payg_credits_type_0 = PaygCredits.from_dict(data)

                return payg_credits_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PaygCredits | Unset, data)

        payg_credits = _parse_payg_credits(d.pop("payg_credits", UNSET))

        usage = cls(
            plan=plan,
            quota_source=quota_source,
            period=period,
            emails=emails,
            daily=daily,
            verify_credits=verify_credits,
            test_allowance=test_allowance,
            rate_limit_per_minute=rate_limit_per_minute,
            payg_credits=payg_credits,
        )

        usage.additional_properties = d
        return usage

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
