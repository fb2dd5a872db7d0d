"""What sending, delivery and the domains routes need from outside.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.audit.domain import AuditEntry
    from postline.domains.domain import RecordType, SendingDomain
    from postline.domains.records import Lookup


class SendingDomains(Protocol):
    def is_verified(self, account_id: str, domain: str) -> bool: ...

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        """The account's verified sending domain of that name, with its DKIM key; None otherwise."""
        ...

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        """Adds live copies handed over to the domain's sent_count."""
        ...


class DomainGrants(Protocol):
    """Other accounts' domains as sending sees them: those shared with the company and those granted
    to outside accounts (external_accounts). Read at once, never from a cache, so an unshare or a
    revoked grant stops the next send."""

    def current_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        """The account's verified sending domain of that name as stored now (a consistent read, not a
        cache), with its DKIM key; None otherwise."""
        ...

    def granted_domain(self, account_id: str, domain: str, *, revoked_too: bool = False) -> SendingDomain | None:
        """A verified domain of that name another account grants `account_id` sending from (its
        external_accounts name it), with the owner's DKIM key; None otherwise. Read at once: a
        revoked grant stops new sends on the next one. revoked_too: also one granted once and
        revoked since (for delivering a message accepted under the grant)."""
        ...


class DomainStore(Protocol):
    """The account's sending domains, DKIM private keys sealed in storage."""

    def get_domain(self, account_id: str, domain_id: str) -> SendingDomain | None: ...

    def list_domains(self, account_id: str) -> list[SendingDomain]:
        """Every domain of the account, by name (the plan bounds how many)."""
        ...

    def create_domain(self, domain: SendingDomain, *, max_domains: int, audit: AuditEntry) -> None:
        """Raises Forbidden(plan_limit_reached) at max_domains, ValidationFailed for a name the
        account already has."""
        ...

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
        """Writes the domain (and its revision + 1) if it still has the revision it was read with;
        False when another check or edit wrote it meanwhile, or it was deleted. `rekeyed`: its
        private keys changed (a rotation), so they are sealed and written too. `granted`, `revoked`:
        the outside accounts its external_accounts gained and lost, whose grants change with it."""
        ...

    def delete_domain(self, domain: SendingDomain, audit: AuditEntry) -> None:
        """Deletes it and its grants to outside accounts."""
        ...

    def granted_domains(self, account_id: str) -> list[SendingDomain]:
        """The domains other accounts grant `account_id` sending from (any status), as stored."""
        ...

    def due_domains(self, now: datetime, limit: int) -> list[SendingDomain]:
        """Up to `limit` domains whose next check is due, most overdue first."""
        ...


class RecordLookup(Protocol):
    def lookup(self, name: str, record_type: RecordType) -> Lookup:
        """The values published at `name`; Lookup(error=...) when DNS did not answer."""
        ...


class DkimKeys(Protocol):
    def new_key(self) -> tuple[str, str]:
        """A fresh 2048-bit RSA key: (private key PEM, public key base64 DER for p=)."""
        ...


class ProviderIdentities(Protocol):
    """The outbound provider's own record of the domain (SES identities, where SES sends)."""

    def dkim_verified(self, domain: SendingDomain) -> bool:
        """Whether the provider found the domain's DKIM record (making its identity if missing)."""
        ...

    def signing_key_changed(self, domain: SendingDomain) -> None: ...

    def delete(self, domain: SendingDomain) -> None: ...


class OwnerNotices(Protocol):
    def email_owner_or_raise(self, account_id: str, subject: str, text: str) -> None:
        """A notice to the account's owner; raises when it could not be sent (the caller retries)."""
        ...


class DomainReputations(Protocol):
    def domain_scores(self, account_id: str, mode: str) -> dict[str, int | None]:
        """The account's sending domains' reputation (name -> 0-100, None below the minimum volume)
        in a mode (live or test), as last computed from the metrics roll-ups (metrics/reputation.py)."""
        ...
