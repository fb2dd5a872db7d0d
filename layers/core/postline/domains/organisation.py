"""Domains shared with the company: a workspace sends from a verified domain another workspace of its
organisation (its parent or a sibling) shares with the company (`shared_with_company`), signed with
the owner's DKIM key, under the owner's return-path. The domain stays the owner's: its sent_count
grows, and only the owner changes, re-checks, rotates or deletes it (others: 403
shared_domain_owner_only, domains/service.py).

OrganisationDomains wraps the store's SendingDomains for sending, delivery and content checks: the
account's own domain of that name first, else the first shared one of its organisation.

A domain's owner may also grant sending from it to named accounts outside its organisation
(`external_accounts`, `shared_external` while any): the same, found through the grant items in
the grantee's partition.

Unsharing stops new sends at once. The store caches an account's own verified domains per container
for a minute (the hot path: most sends are from the sender's own domain, and stay one cached
lookup); another workspace's domain is read from the table at every screening instead
(DomainGrants.current_domain), because the unshare is written by another container (the domains
route's, or the operator's CLI) whose cache is not the screening one's. That costs one GetItem,
and only on a send from a domain that is not the sender's own, which already reads the organisation
and each workspace's item of that name (a miss is never cached); a version or generation item to
check would be a read as well.

Messages already accepted still go: delivery reads with `accepted=True`, which finds the
organisation's domain the message was screened against even once it is unshared (one shared now
first), signed with its owner's key; one accepted under an external grant revoked since finds the
owner through the grant's item, which stays marked revoked (domains/store.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from postline.accounts.domain import Account
    from postline.domains.domain import SendingDomain
    from postline.domains.ports import DomainGrants, SendingDomains
    from postline.subaccounts.organisation import Organisation


def shared_with(domain: SendingDomain | None) -> bool:
    return domain is not None and domain.shared_with_company


class OrganisationDomains:
    def __init__(
        self, own: SendingDomains, organisation: Organisation, *, grants: DomainGrants, accepted: bool = False
    ) -> None:
        """grants: other accounts' domains, read at once. accepted: for delivery, whose messages were
        screened as they were accepted and still go once their domain is unshared."""
        self._own = own
        self._organisation = organisation
        self._grants = grants
        self._accepted = accepted

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
        workspaces = self._organisation.other_workspaces(account)
        if self._accepted:  # screened when accepted: the domain as found, shared now or not
            company = shared_domain(self._own.verified_domain, workspaces, domain) or next(
                (found for w in workspaces if (found := self._own.verified_domain(w.id, domain)) is not None), None
            )
        else:
            company = shared_domain(self._grants.current_domain, workspaces, domain)
        if company is not None:
            return company
        granted = self._grants.granted_domain(account_id, domain, revoked_too=self._accepted)
        if granted is None:
            return None
        owner = self._organisation.account(granted.account_id)
        return granted if owner is not None and owner.blocked_code() is None else None


def shared_domain(
    read: Callable[[str, str], SendingDomain | None], workspaces: list[Account], domain: str
) -> SendingDomain | None:
    """The verified domain of that name one of `workspaces` shares with the company, if any, each
    workspace's read with `read` (account id, name)."""
    for workspace in workspaces:
        found = read(workspace.id, domain)
        if shared_with(found):
            return found
    return None
