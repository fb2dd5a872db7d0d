"""In-memory fakes of the domains area's ports (`postline/domains/ports.py`): sending domains as sending
sees them, the domain store, DNS, DKIM keys, the provider's identities and owner notices."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from postline.audit.domain import AuditEntry
from postline.domains.domain import RecordType, SendingDomain
from postline.domains.records import Lookup
from postline.shared.errors import Forbidden, NotFound, ValidationFailed

if TYPE_CHECKING:
    from postline.domains.ports import (
        DkimKeys,
        DomainGrants,
        DomainStore,
        OwnerNotices,
        ProviderIdentities,
        RecordLookup,
        SendingDomains,
    )


SENDING_DOMAIN = "postline.test"


class OneVerifiedDomain:
    """Every account has verified SENDING_DOMAIN (no DKIM key: the tests' mail is simulated or unsigned)."""

    def is_verified(self, account_id: str, domain: str) -> bool:
        return domain == SENDING_DOMAIN

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        return None

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        return None


class InMemoryDomains:
    """The DomainStore port: names unique per account, the plan count refused at max_domains, writes
    guarded by revision, and each write's audit entry kept beside it (`audit`)."""

    def __init__(self) -> None:
        self.domains: dict[tuple[str, str], SendingDomain] = {}  # (account, name) -> domain
        self.audit: list[AuditEntry] = []
        self.once_granted: set[tuple[str, str, str]] = set()  # (grantee, owner, name): grants since revoked too

    def get_domain(self, account_id: str, domain_id: str) -> SendingDomain | None:
        return next((d for d in self.list_domains(account_id) if d.id == domain_id), None)

    def list_domains(self, account_id: str) -> list[SendingDomain]:
        return [d.model_copy() for (account, _), d in sorted(self.domains.items()) if account == account_id]

    def create_domain(self, domain: SendingDomain, *, max_domains: int, audit: AuditEntry) -> None:
        if len(self.list_domains(domain.account_id)) >= max_domains:
            raise Forbidden(f"at most {max_domains} sending domains", code="plan_limit_reached")
        if (domain.account_id, domain.domain) in self.domains:
            raise ValidationFailed(f"domain: this account already has {domain.domain}.")
        self.domains[(domain.account_id, domain.domain)] = domain.model_copy()
        self.audit.append(audit)

    def save_domain(
        self,
        domain: SendingDomain,
        *,
        expected_revision: int,
        audit: AuditEntry | None,
        rekeyed: bool = False,
        granted: Sequence[str] = (),
        revoked: Sequence[str] = (),
    ) -> bool:
        stored = self.domains.get((domain.account_id, domain.domain))
        if stored is None or stored.revision != expected_revision:
            return False
        self.domains[(domain.account_id, domain.domain)] = domain.model_copy(
            update={"revision": expected_revision + 1, "sent_count": stored.sent_count}
        )
        self.audit.extend([audit] if audit else [])
        self.once_granted.update((grantee, domain.account_id, domain.domain) for grantee in granted)
        return True

    def delete_domain(self, domain: SendingDomain, audit: AuditEntry) -> None:
        if self.domains.pop((domain.account_id, domain.domain), None) is None:
            raise NotFound(f"sending domain {domain.id} not found")
        self.once_granted = {g for g in self.once_granted if g[1:] != (domain.account_id, domain.domain)}
        self.audit.append(audit)

    # -- as sending sees them (SendingDomains, DomainGrants) --

    def is_verified(self, account_id: str, domain: str) -> bool:
        return self.verified_domain(account_id, domain) is not None

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        found = self.domains.get((account_id, domain))
        return found.model_copy() if found is not None and found.verified else None

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        stored = self.domains[(account_id, domain)]
        self.domains[(account_id, domain)] = stored.model_copy(update={"sent_count": stored.sent_count + copies})

    def current_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        return self.verified_domain(account_id, domain)

    def granted_domains(self, account_id: str) -> list[SendingDomain]:
        """Derived from each domain's own list (the store keeps an index of it)."""
        return [d.model_copy() for _, d in sorted(self.domains.items()) if account_id in d.external_accounts]

    def granted_domain(self, account_id: str, domain: str, *, revoked_too: bool = False) -> SendingDomain | None:
        found = next((d for d in self.granted_domains(account_id) if d.domain == domain and d.verified), None)
        if found is None and revoked_too:
            owners = sorted(
                owner for grantee, owner, name in self.once_granted if (grantee, name) == (account_id, domain)
            )
            found = next((d for owner in owners if (d := self.verified_domain(owner, domain)) is not None), None)
        return found

    def due_domains(self, now: datetime, limit: int) -> list[SendingDomain]:
        due = [d for d in self.domains.values() if d.next_check_at is not None and d.next_check_at <= now]
        return [d.model_copy() for d in sorted(due, key=lambda d: d.next_check_at or now)[:limit]]


class ZoneLookup:
    """The RecordLookup port over a dict: (name, type) -> values; `down` names answer with an error."""

    def __init__(self) -> None:
        self.zone: dict[tuple[str, RecordType], list[str]] = {}
        self.down: set[str] = set()

    def publish(self, name: str, record_type: RecordType, *values: str) -> None:
        self.zone[(name.lower(), record_type)] = list(values)

    def remove(self, name: str, record_type: RecordType) -> None:
        self.zone.pop((name.lower(), record_type), None)

    def lookup(self, name: str, record_type: RecordType) -> Lookup:
        if name.lower() in self.down:
            return Lookup(error=f"SERVFAIL for {name}")
        return Lookup(tuple(self.zone.get((name.lower(), record_type), ())))


class FixedDkimKeys:
    """One pre-made key for every domain: generating 2048-bit keys per test would be slow."""

    def __init__(self, private_pem: str, public_b64: str) -> None:
        self.pair = (private_pem, public_b64)

    def new_key(self) -> tuple[str, str]:
        return self.pair


class RecordingNotices:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str]] = []  # (account id, subject, text)
        self.failing = 0  # the next notices to fail, as SES or the relay might

    def email_owner_or_raise(self, account_id: str, subject: str, text: str) -> None:
        if self.failing:
            self.failing -= 1
            raise ConnectionError("the notice could not be sent")
        self.sent.append((account_id, subject, text))


class ScriptedIdentities:
    """The ProviderIdentities port: SES's DKIM verdict per domain as the test sets it (default not yet)."""

    def __init__(self) -> None:
        self.verified: set[str] = set()
        self.asked: list[str] = []
        self.signing: dict[str, str] = {}  # domain -> the selector SES signs with
        self.deleted: list[str] = []

    def dkim_verified(self, domain: SendingDomain) -> bool:
        self.asked.append(domain.domain)
        self.signing.setdefault(domain.domain, domain.dkim_selector)
        return domain.domain in self.verified

    def signing_key_changed(self, domain: SendingDomain) -> None:
        self.signing[domain.domain] = domain.dkim_selector

    def delete(self, domain: SendingDomain) -> None:
        self.deleted.append(domain.domain)


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _sending_domains: SendingDomains = OneVerifiedDomain()
    _domains: DomainStore = InMemoryDomains()
    _grants: DomainGrants = InMemoryDomains()
    _sending_in_memory: SendingDomains = InMemoryDomains()
    _lookup: RecordLookup = ZoneLookup()
    _dkim_keys: DkimKeys = FixedDkimKeys("private pem", "public base64")
    _notices: OwnerNotices = RecordingNotices()
    _identities: ProviderIdentities = ScriptedIdentities()
