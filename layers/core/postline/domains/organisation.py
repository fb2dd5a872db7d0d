"""Domains shared with the company: a workspace sends from a verified domain another workspace of its
organisation (its parent or a sibling) shares with the company (`shared_with_company`), signed with
the owner's DKIM key, under the owner's return-path. The domain stays the owner's: its sent_count
grows, and only the owner changes, re-checks, rotates or deletes it (others: 403
shared_domain_owner_only, domains/service.py).

OrganisationDomains wraps the store's SendingDomains for sending, delivery and content checks: the
account's own domain of that name first, else the first shared one of its organisation. Unsharing
stops new sends as soon as the store's per-container cache of verified domains (a minute) lets go.

A domain's owner may also grant sending from it to named accounts outside its organisation
(`external_accounts`, `shared_external` while any): the same, found through the grant items in
the grantee's partition, read at once, so a revoked grant stops the grantee's next send.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.domains.domain import SendingDomain
    from postline.domains.ports import DomainGrants, SendingDomains
    from postline.subaccounts.organisation import Organisation


def shared_with(domain: SendingDomain | None) -> bool:
    return domain is not None and domain.shared_with_company


class OrganisationDomains:
    def __init__(self, own: SendingDomains, organisation: Organisation, grants: DomainGrants | None = None) -> None:
        """grants: the outside accounts' grants (None: the company's sharing only)."""
        self._own = own
        self._organisation = organisation
        self._grants = grants

    def is_verified(self, account_id: str, domain: str) -> bool:
        return self._own.is_verified(account_id, domain) or self._shared(account_id, domain) is not None

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        return self._own.verified_domain(account_id, domain) or self._shared(account_id, domain)

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        """Counted on the owner's domain."""
        if self._own.is_verified(account_id, domain):
            self._own.count_sent(account_id, domain, copies)
            return
        shared = self._shared(account_id, domain)
        self._own.count_sent(shared.account_id if shared else account_id, domain, copies)

    def _shared(self, account_id: str, domain: str) -> SendingDomain | None:
        """Shared with its company first, else granted to it by name (external_accounts), from an
        owner whose keys still work."""
        account = self._organisation.account(account_id)
        if account is None:
            return None
        company = shared_domain(self._own, self._organisation.other_workspaces(account), domain)
        if company is not None:
            return company
        granted = self._grants.granted_domain(account_id, domain) if self._grants is not None else None
        if granted is None:
            return None
        owner = self._organisation.account(granted.account_id)
        return granted if owner is not None and owner.blocked_code() is None else None


def shared_domain(own: SendingDomains, workspaces: list[Account], domain: str) -> SendingDomain | None:
    """The verified domain of that name one of `workspaces` shares with the company, if any."""
    for workspace in workspaces:
        found = own.verified_domain(workspace.id, domain)
        if shared_with(found):
            return found
    return None
