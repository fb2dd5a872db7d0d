"""Sending domains: the entity, the DNS records it asks for, and its status machine.

Pure: no DNS, no storage, no clock reads (time is passed in). The records a customer publishes and
how a check's findings move the status are written out in the README ("Sending domains").
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field

from postline.shared.base import Model

# Nothing verified within this long of create: verification_timeout. A verified domain that loses a
# required record keeps sending this long (the grace), then becomes unverified.
VERIFY_WINDOW = timedelta(hours=72)
GRACE = timedelta(hours=72)
FIRST_RECHECK = timedelta(minutes=5)  # pending domains: 5, 10, 20, 40 min, ... up to MAX_PENDING_RECHECK
MAX_PENDING_RECHECK = timedelta(hours=2)
MAX_EXTERNAL_ACCOUNTS = 25  # a domain's grants to outside accounts: one transaction writes them all
GRACE_RECHECK = timedelta(hours=1)  # a verified domain missing a record, during its grace
VERIFIED_RECHECK = timedelta(days=1)
DEFAULT_RETURN_PATH = "pm-bounces"  # the bounce subdomain: SPF and MX live there


class DomainStatus(StrEnum):
    VERIFIED = "verified"
    PENDING = "pending"
    UNVERIFIED = "unverified"
    PARTIALLY_VERIFIED = "partially_verified"
    VERIFICATION_FAILED = "verification_failed"
    VERIFICATION_TIMEOUT = "verification_timeout"


class RecordType(StrEnum):
    TXT = "TXT"
    CNAME = "CNAME"
    MX = "MX"


class RecordPurpose(StrEnum):
    DKIM = "dkim"
    DKIM_NEXT = "dkim_next"  # a rotation's new key: signing moves to it once it is found
    SPF = "spf"
    RETURN_PATH_MX = "return_path_mx"
    DMARC = "dmarc"
    TRACKING = "tracking"


REQUIRED = (RecordPurpose.DKIM, RecordPurpose.SPF, RecordPurpose.RETURN_PATH_MX)


class Finding(StrEnum):
    """What a check found at a record's host."""

    FOUND = "found"  # the expected value is published
    MISMATCH = "mismatch"  # a record of that type is there, with another value
    INVALID = "invalid"  # what is there is refused by receivers (two SPF records, a duplicated tag...)
    MISSING = "missing"  # nothing of that type at the host
    DOMAIN_APPENDED_TWICE = "domain_appended_twice"  # published at host.domain.domain: a DNS provider's suffix
    LOOKUP_FAILED = "lookup_failed"  # DNS did not answer; nothing is concluded from it
    UNCHECKED = "unchecked"  # not checked yet


class DnsRecord(Model):
    """One record the customer publishes, and what the last check found there."""

    purpose: RecordPurpose
    type: RecordType
    host: str
    value: str
    ok: bool = False
    finding: Finding = Finding.UNCHECKED
    detail: str | None = None  # what was found instead, or why it failed


class DnsSettings(Model):
    """The service's side of the records: where SPF, the bounce MX and tracking CNAMEs point."""

    spf_include: str  # the SPF record of the service's sending hosts
    bounce_mx: str  # the host receiving bounces for every return-path subdomain
    tracking_host: str  # branded tracking hosts are CNAMEs to it


class SendingDomain(Model):
    account_id: str
    domain: str  # lower case, ASCII (an internationalized name as its A-label)
    status: DomainStatus
    dkim_selector: str
    dkim_private_key: str  # PEM; stored encrypted under the content key, decrypted on read
    id: str
    created_at: datetime
    dkim_public_key: str = ""  # base64 DER, the p= of the DKIM record
    # A rotation's next key (Postmark's "pending" host): published beside the current one, which
    # keeps signing until a check finds the next one; then the next one signs and the old record
    # can go.
    next_dkim_selector: str | None = None
    next_dkim_private_key: str | None = None  # sealed like dkim_private_key
    next_dkim_public_key: str | None = None
    return_path: str = DEFAULT_RETURN_PATH
    tracking_subdomain: str | None = None
    region: str | None = None
    records: list[DnsRecord] = Field(default_factory=list)  # as last checked
    sent_count: int = 0
    reputation: int | None = None
    shared_with_company: bool = False
    shared_external: bool = False  # kept equal to bool(external_accounts) by the service
    # Accounts outside its own (any other account, named by id) granted sending from it
    # (domains/organisation.py); each has a grant item in its own partition (domains/store.py).
    external_accounts: list[str] = Field(default_factory=list)
    # Outside accounts granted once and revoked since (kept by the service): their grant items stay,
    # marked revoked, for mail accepted under the grant, until deleting the domain deletes them.
    revoked_accounts: list[str] = Field(default_factory=list)
    owner_workspace_name: str | None = None
    verified_at: datetime | None = None  # the last time it became verified
    checked_at: datetime | None = None
    check_count: int = 0  # checks in the current status, this one included: the pending back-off
    lost_at: datetime | None = None  # a verified domain's first check missing a required record
    next_check_at: datetime | None = None  # None: only a manual check
    revision: int = 0  # moved by every write but sending's count: a check and an edit never cross

    @property
    def verified(self) -> bool:
        """Sends live: verified, including a verified domain in its grace after losing a record."""
        return self.status is DomainStatus.VERIFIED

    @property
    def return_path_host(self) -> str:
        return f"{self.return_path}.{self.domain}"

    @property
    def tracking_host(self) -> str | None:
        return f"{self.tracking_subdomain}.{self.domain}" if self.tracking_subdomain else None

    @property
    def branded_tracking_host(self) -> str | None:
        """The tracking host links use once its CNAME to ours was found, else None (the API's URL)."""
        return self.tracking_host if self.ok(RecordPurpose.TRACKING) else None

    def envelope_sender(self, message_id: str) -> str:
        """MAIL FROM on the return-path subdomain, so bounces reach the service and SPF aligns."""
        return f"bounces+{message_id}@{self.return_path_host}"

    def ok(self, purpose: RecordPurpose) -> bool:
        return any(record.ok for record in self.records if record.purpose is purpose)


def dkim_txt(public_key_b64: str) -> str:
    """The TXT record value published at <selector>._domainkey.<domain>."""
    return f"v=DKIM1; k=rsa; p={public_key_b64}"


def spf_txt(settings: DnsSettings) -> str:
    return f"v=spf1 include:{settings.spf_include} ~all"


def recommended_dmarc(domain: str) -> str:
    return f"v=DMARC1; p=none; rua=mailto:dmarc-reports@{domain}"


def expected_records(domain: SendingDomain, settings: DnsSettings) -> list[DnsRecord]:
    """What the customer publishes: DKIM, SPF and MX on the return path, DMARC, tracking CNAME."""
    records = [
        DnsRecord(
            purpose=RecordPurpose.DKIM,
            type=RecordType.TXT,
            host=f"{domain.dkim_selector}._domainkey.{domain.domain}",
            value=dkim_txt(domain.dkim_public_key),
        ),
        *(
            [
                DnsRecord(
                    purpose=RecordPurpose.DKIM_NEXT,
                    type=RecordType.TXT,
                    host=f"{domain.next_dkim_selector}._domainkey.{domain.domain}",
                    value=dkim_txt(domain.next_dkim_public_key or ""),
                )
            ]
            if domain.next_dkim_selector
            else []
        ),
        DnsRecord(
            purpose=RecordPurpose.SPF, type=RecordType.TXT, host=domain.return_path_host, value=spf_txt(settings)
        ),
        DnsRecord(
            purpose=RecordPurpose.RETURN_PATH_MX,
            type=RecordType.MX,
            host=domain.return_path_host,
            value=f"10 {settings.bounce_mx}",
        ),
        DnsRecord(
            purpose=RecordPurpose.DMARC,
            type=RecordType.TXT,
            host=f"_dmarc.{domain.domain}",
            value=recommended_dmarc(domain.domain),
        ),
    ]
    if domain.tracking_host:
        records.append(
            DnsRecord(
                purpose=RecordPurpose.TRACKING,
                type=RecordType.CNAME,
                host=domain.tracking_host,
                value=settings.tracking_host,
            )
        )
    return records


def tracking_host_clashes(domain: SendingDomain, settings: DnsSettings) -> list[DnsRecord]:
    """The domain's other records at its tracking host. A CNAME can have no other record beside it
    (RFC 1034 section 3.6.2, RFC 2181 section 10.1), so the tracking host must be a name of its own:
    never the return path (its SPF TXT and MX), nor any other host the domain publishes at."""
    host = domain.tracking_host
    others = [record for record in expected_records(domain, settings) if record.purpose is not RecordPurpose.TRACKING]
    return [record for record in others if host is not None and record.host == host]


# -- the status machine ------------------------------------------------------------------------------


def after_check(
    domain: SendingDomain, records: list[DnsRecord], now: datetime, *, provider_ok: bool = True
) -> SendingDomain:
    """The domain once a check found `records`: its new status, timers and next check. Where SES
    sends, `provider_ok` is SES's own DKIM verdict, required for verified like the records.

    | from                           | the check finds                   | to                                      |
    | any                            | DKIM, SPF and return-path MX ok   | verified (grace cleared)                |
    | verified                       | a required record missing/wrong   | verified, grace starts (owner warned)   |
    | verified, grace over           | still missing                     | unverified                              |
    | unverified                     | not all required ok               | unverified                              |
    | other, 72 h after create       | not all required ok               | verification_timeout                    |
    | other                          | a record wrong or invalid         | verification_failed                     |
    | other                          | some required ok                  | partially_verified                      |
    | other                          | nothing                           | pending                                 |

    A lookup that failed (DNS did not answer) decides nothing: the status stays as it was.
    """
    domain = promoted(domain.model_copy(update={"records": records}))
    records = domain.records
    required = [record for record in records if record.purpose in REQUIRED]
    changes: dict[str, object] = {"checked_at": now}
    if any(record.finding is Finding.LOOKUP_FAILED for record in required):
        status, lost_at = domain.status, domain.lost_at
    elif provider_ok and all(record.ok for record in required):
        status, lost_at = DomainStatus.VERIFIED, None
        if domain.status is not DomainStatus.VERIFIED:
            changes["verified_at"] = now
    elif domain.status is DomainStatus.VERIFIED:
        lost_at = domain.lost_at or now
        status = DomainStatus.UNVERIFIED if now - lost_at >= GRACE else DomainStatus.VERIFIED
    elif domain.status is DomainStatus.UNVERIFIED:
        status, lost_at = DomainStatus.UNVERIFIED, None
    elif now - domain.created_at >= VERIFY_WINDOW:
        status, lost_at = DomainStatus.VERIFICATION_TIMEOUT, None
    elif any(
        record.finding in (Finding.MISMATCH, Finding.INVALID, Finding.DOMAIN_APPENDED_TWICE) for record in required
    ):
        status, lost_at = DomainStatus.VERIFICATION_FAILED, None
    elif any(record.ok for record in required):
        status, lost_at = DomainStatus.PARTIALLY_VERIFIED, None
    else:
        status, lost_at = DomainStatus.PENDING, None
    if status is DomainStatus.UNVERIFIED and domain.status is DomainStatus.VERIFIED:
        lost_at = None
    checks = domain.check_count + 1 if status is domain.status and lost_at == domain.lost_at else 1
    changes.update(status=status, lost_at=lost_at, check_count=checks)
    checked = domain.model_copy(update=changes)
    return checked.model_copy(update={"next_check_at": next_check(checked, now)})


def rotated(domain: SendingDomain, selector: str, private_key: str, public_key: str) -> SendingDomain:
    """The domain with a next DKIM key to publish (a rotation started again replaces it)."""
    return domain.model_copy(
        update={
            "next_dkim_selector": selector,
            "next_dkim_private_key": private_key,
            "next_dkim_public_key": public_key,
        }
    )


def promoted(domain: SendingDomain) -> SendingDomain:
    """Once a check found the next key published, it signs; the old selector's record can go."""
    if not (domain.next_dkim_selector and domain.ok(RecordPurpose.DKIM_NEXT)):
        return domain
    current = {record.purpose: record for record in domain.records}
    promoted_record = current[RecordPurpose.DKIM_NEXT].model_copy(update={"purpose": RecordPurpose.DKIM})
    records = [
        promoted_record if record.purpose is RecordPurpose.DKIM else record
        for record in domain.records
        if record.purpose is not RecordPurpose.DKIM_NEXT
    ]
    return domain.model_copy(
        update={
            "dkim_selector": domain.next_dkim_selector,
            "dkim_private_key": domain.next_dkim_private_key,
            "dkim_public_key": domain.next_dkim_public_key,
            "next_dkim_selector": None,
            "next_dkim_private_key": None,
            "next_dkim_public_key": None,
            "records": records,
        }
    )


def next_check(domain: SendingDomain, now: datetime) -> datetime | None:
    """When the schedule checks the domain again; None: only when its owner asks."""
    if domain.status is DomainStatus.VERIFIED:
        return now + (GRACE_RECHECK if domain.lost_at else VERIFIED_RECHECK)
    if domain.status is DomainStatus.UNVERIFIED:
        return now + VERIFIED_RECHECK
    if domain.status is DomainStatus.VERIFICATION_TIMEOUT:
        return None
    backoff: timedelta = FIRST_RECHECK * 2 ** min(max(domain.check_count - 1, 0), 10)
    return now + min(backoff, MAX_PENDING_RECHECK)


def losing_record(before: SendingDomain, after: SendingDomain) -> bool:
    """The check that starts a verified domain's grace: warn the owner."""
    return after.lost_at is not None and before.lost_at is None
