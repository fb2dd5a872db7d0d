"""/v3/domains: what the routes take and return (the interface's Domain; never a private key)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints

from postline.domains.domain import (
    MAX_EXTERNAL_ACCOUNTS,
    DnsRecord,
    DomainStatus,
    Finding,
    RecordPurpose,
    RecordType,
    SendingDomain,
)
from postline.shared.base import Model

# One DNS label (RFC 1035 letters, digits, inner hyphens): the tracking host's first label.
Label = Annotated[
    str,
    StringConstraints(strip_whitespace=True, to_lower=True, pattern=r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$"),
]
AccountId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
Region = Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-[a-z]+)+-[0-9]$", max_length=32)]


class _Strict(Model):
    model_config = ConfigDict(extra="forbid")


class DomainCreate(_Strict):
    domain: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=253)] = Field(
        description="The name mail is sent from (internationalized names are stored as their A-label)."
    )
    tracking_subdomain: Label | None = Field(
        default=None,
        description="Branded tracking host: <tracking_subdomain>.<domain>, a CNAME to ours; never the host of "
        "the domain's other records (pm-bounces, the return path).",
    )
    region: Region | None = Field(
        default=None,
        description="An AWS region for it, where SES sends; stored only: SES identities live in the stack's.",
    )


class DomainUpdate(_Strict):
    """PATCH: the fields present change (null removes). Sharing is the owner workspace's."""

    tracking_subdomain: Label | None = None
    region: Region | None = None
    shared_with_company: bool | None = Field(
        default=None,
        description="Every other workspace of the organisation (its parent, its subaccounts) may send from it "
        "once it is verified; they read it but cannot change, check, rotate or delete it.",
    )
    external_accounts: Annotated[list[AccountId], Field(max_length=MAX_EXTERNAL_ACCOUNTS)] | None = Field(
        default=None,
        description=f"Accounts outside the organisation (by account id, at most {MAX_EXTERNAL_ACCOUNTS}) granted "
        "sending from it: the whole list, replacing the current one ([] or null revokes every grant). "
        "shared_external is true while it is not empty.",
    )


class DomainRecordView(Model):
    type: RecordType
    host: str
    value: str = Field(description="What to publish (DMARC: the policy found, or the one we recommend).")
    ok: bool
    purpose: RecordPurpose
    status: Finding = Field(description="What the last check found at the host.")
    detail: str | None = Field(description="The value found instead, why receivers refuse it, or how to fix it.")


class Domain(Model):
    id: str
    domain: str
    status: DomainStatus
    spf: bool
    dkim: bool
    dmarc: bool
    region: str | None
    dkim_selector: str | None
    tracking_subdomain: str | None
    dns_records: list[DomainRecordView]
    sent_count: int
    reputation: int | None = Field(ge=0, le=100)
    created_at: datetime
    verified_at: datetime | None
    shared_with_company: bool
    shared_external: bool
    owner_workspace_name: str | None
    external_accounts: list[str] | None = Field(
        description="The accounts outside the organisation granted sending from it: the owner's view only "
        "(null where another workspace reads a domain shared with it)."
    )


class DomainList(Model):
    items: list[Domain]
    total_count: int


def _record(record: DnsRecord) -> DomainRecordView:
    return DomainRecordView(
        type=record.type,
        host=record.host,
        value=record.value,
        ok=record.ok,
        purpose=record.purpose,
        status=record.finding,
        detail=record.detail,
    )


def domain_view(domain: SendingDomain, *, reputation: int | None = None) -> Domain:
    """reputation: computed from the metrics roll-ups (domains/ports.py DomainReputations); a stored
    one, if any, wins."""
    return Domain(
        id=domain.id,
        domain=domain.domain,
        status=domain.status,
        spf=domain.ok(RecordPurpose.SPF) and domain.ok(RecordPurpose.RETURN_PATH_MX),
        dkim=domain.ok(RecordPurpose.DKIM),
        dmarc=domain.ok(RecordPurpose.DMARC),
        region=domain.region,
        dkim_selector=domain.dkim_selector,
        tracking_subdomain=domain.tracking_subdomain,
        dns_records=[_record(record) for record in domain.records],
        sent_count=domain.sent_count,
        reputation=domain.reputation if domain.reputation is not None else reputation,
        created_at=domain.created_at,
        verified_at=domain.verified_at,
        shared_with_company=domain.shared_with_company,
        shared_external=domain.shared_external,
        owner_workspace_name=domain.owner_workspace_name,
        external_accounts=list(domain.external_accounts),
    )
