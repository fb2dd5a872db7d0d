"""POST /v3/validate: the request and the ValidationResult (interface: Email verification)."""

from __future__ import annotations

from datetime import datetime

from pydantic import ConfigDict, Field

from postline.shared.base import Model
from postline.shared.verification_results import VerificationResult
from postline.verification.domain import Recommendation, Risk


class ValidateRequest(Model):
    model_config = ConfigDict(extra="forbid")

    email: str = Field(min_length=1, max_length=320, description="The address to verify, as your list holds it.")


class Activity(Model):
    """The account's own history with the address, from its events (not shown by the spec beyond clicked)."""

    seen: bool = False
    first_seen_at: datetime | None = None
    last_seen_at: datetime | None = None
    total_sends: int = 0
    delivered: int = 0
    bounced: int = 0
    opened: int = 0
    clicked: int = 0
    complained: int = 0
    unsubscribed: int = 0


class ValidationResult(Model):
    verification_id: str | None
    address: str = Field(description="As submitted.")
    is_valid: bool
    result: VerificationResult
    status: VerificationResult
    sub_status: str = Field(description="Why, in one word: failed_syntax_check, mailbox_not_found, accept_all, ...")
    recommendation: Recommendation
    confidence: float = Field(ge=0, le=1)
    risk: Risk
    reason: str
    did_you_mean: str | None
    account: str = Field(description="The local part.")
    domain: str
    mx_provider: str | None
    mx_record: str | None
    mx_found: bool
    is_catch_all: bool
    is_disposable: bool
    is_role_address: bool
    is_free_provider: bool
    smtp_check: bool | None = Field(
        description="The mailbox answered RCPT TO: true accepted, false refused, null unknown."
    )
    domain_age_days: int | None
    activity: Activity
