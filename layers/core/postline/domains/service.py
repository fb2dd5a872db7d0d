"""Sending domains: create, list, get, update, delete, check now, and the scheduled re-checks. Audited.

A check looks each expected record up (dnspython through the RecordLookup port), compares it
(records.py) and moves the status (domain.after_check). The owner is emailed when a verified
domain starts its grace; each status move is an audit entry (a user's check: domain.checked,
with the move in its details; the schedule's: domain.status_changed, by the system).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from postline.accounts.domain import Account, AccountStatus
from postline.audit.domain import Actor, AuditEntry
from postline.audit.service import new_audit_entry
from postline.domains.domain import (
    GRACE,
    MAX_EXTERNAL_ACCOUNTS,
    REQUIRED,
    DnsRecord,
    DnsSettings,
    DomainStatus,
    Finding,
    RecordPurpose,
    SendingDomain,
    after_check,
    expected_records,
    losing_record,
    rotated,
    tracking_host_clashes,
)
from postline.domains.models import Domain, DomainCreate, DomainList, DomainUpdate, domain_view
from postline.domains.names import sending_domain_name
from postline.domains.ports import (
    DkimKeys,
    DomainReputations,
    DomainStore,
    OwnerNotices,
    ProviderIdentities,
    RecordLookup,
)
from postline.domains.records import appended_twice, compare
from postline.keys.identity import Principal
from postline.keys.models import DeleteConfirmation
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from postline.shared.ports import Clock, IdFactory
from postline.subaccounts.organisation import Organisation

logger = logging.getLogger(__name__)
RECHECKS_PER_RUN = 25  # a scheduled run's bound: ~5 lookups each, well inside the worker's timeout
WRITE_ATTEMPTS = 3
OWNER_ONLY = "shared_domain_owner_only"  # 403: a change to a domain another workspace shares with the company
Written = tuple[SendingDomain, AuditEntry | None]  # a change's result: the domain to write, its audit entry


class DomainService:
    def __init__(
        self,
        *,
        domains: DomainStore,
        lookup: RecordLookup,
        keys: DkimKeys,
        notices: OwnerNotices,
        settings: DnsSettings,
        identities: ProviderIdentities | None,
        ids: IdFactory,
        clock: Clock,
        organisation: Organisation | None = None,
        reputations: DomainReputations | None = None,
    ) -> None:
        """identities: SES's, where SES sends (None for SMTP). organisation: the workspaces whose
        domains shared with the company this one lists and reads (None: its own only).
        reputations: each domain's computed reputation (None: always null)."""
        self._domains = domains
        self._lookup = lookup
        self._keys = keys
        self._notices = notices
        self._settings = settings
        self._identities = identities
        self._ids = ids
        self._clock = clock
        self._organisation = organisation
        self._reputations = reputations

    # -- the routes -------------------------------------------------------------------------------------

    def list_all(self, principal: Principal) -> DomainList:
        """Its own domains, then those its organisation's other workspaces share with the company
        (read-only here, owner_workspace_name saying whose)."""
        mode = principal.env.value
        own = self._scored(principal.account.id, mode)
        items = [
            domain_view(domain, reputation=own.get(domain.domain.lower()))
            for domain in self._domains.list_domains(principal.account.id)
        ]
        items += [self._shared_view(domain, owner, mode) for domain, owner in self._shared(principal)]
        return DomainList(items=items, total_count=len(items))

    def get(self, principal: Principal, domain_id: str) -> Domain:
        domain = self._domains.get_domain(principal.account.id, domain_id)
        if domain is not None:
            return self._view(principal, domain)
        shared = next(((d, owner) for d, owner in self._shared(principal) if d.id == domain_id), None)
        if shared is None:
            raise NotFound(f"No sending domain {domain_id} in this account.")
        return self._shared_view(*shared, principal.env.value)

    def _view(self, principal: Principal, domain: SendingDomain) -> Domain:
        scores = self._scored(principal.account.id, principal.env.value)
        return domain_view(domain, reputation=scores.get(domain.domain.lower()))

    def _scored(self, account_id: str, mode: str) -> dict[str, int | None]:
        """The account's domains' reputation in the caller's mode (live mail for a live key, the
        simulator's for a test key: as the metrics routes answer); {} without a source."""
        if self._reputations is None:
            return {}
        return self._reputations.domain_scores(account_id, mode)

    def create(self, principal: Principal, request: DomainCreate) -> Domain:
        return domain_view(self.add(principal.account, request, principal.actor()))

    def add(self, account: Account, request: DomainCreate, actor: Actor) -> SendingDomain:
        """Creates a pending domain with a new DKIM key: the route's create, and the operator's."""
        now = self._clock.now()
        name = sending_domain_name(request.domain)
        private_key, public_key = self._keys.new_key()
        domain = SendingDomain(
            id=self._ids.new_id("dom_"),
            account_id=account.id,
            domain=name,
            status=DomainStatus.PENDING,
            dkim_selector=f"pl{now:%Y%m}",  # dated, so a rotation's next selector differs
            dkim_private_key=private_key,
            dkim_public_key=public_key,
            tracking_subdomain=request.tracking_subdomain,
            region=request.region,
            created_at=now,
            next_check_at=now,
        )
        self._tracking_host_free(domain)
        domain = domain.model_copy(update={"records": expected_records(domain, self._settings)})
        self._domains.create_domain(
            domain, max_domains=account.limits.domains, audit=self._audit(actor, domain, "domain.created", now)
        )
        if self._identities is not None:
            try:
                self._identities.dkim_verified(domain)  # makes the SES identity with the domain's key
            except Exception:  # the domain exists now; its first check (due at once) makes it again
                logger.exception("SES identity of %s not created yet", domain.domain)
        return domain

    def update(self, principal: Principal, domain_id: str, request: DomainUpdate) -> Domain:
        """The fields present change; sharing (shared_with_company, external_accounts) is one of them."""
        self._owned(principal, domain_id)
        changes = {name: getattr(request, name) for name in request.model_fields_set}
        if "shared_with_company" in changes and changes["shared_with_company"] is None:
            raise ValidationFailed("shared_with_company: true or false, not null.")
        if "external_accounts" in changes:
            changes.update(self._external(principal.account.id, changes["external_accounts"] or []))

        def change(current: SendingDomain) -> Written | None:
            updated = current.model_copy(update=changes)
            changed = sorted(name for name in changes if getattr(updated, name) != getattr(current, name))
            if not changed:  # nothing changes: no write, no audit entry
                return None
            if "tracking_subdomain" in changed:
                self._tracking_host_free(updated)
            updated = self._recorded(updated, current)
            details = "changed: " + ", ".join(changed)
            return updated, self._audit(principal.actor(), updated, "domain.updated", self._clock.now(), details)

        return self._view(principal, self._write(principal.account.id, domain_id, change))

    def rotate_dkim(self, principal: Principal, domain_id: str) -> Domain:
        """A new DKIM key under a new selector, to publish beside the current one, which keeps signing
        until a check finds the new record (Postmark's pending host); a rotation already waiting is
        replaced."""
        self._owned(principal, domain_id)
        now = self._clock.now()
        private_key, public_key = self._keys.new_key()

        def change(current: SendingDomain) -> Written:
            updated = self._recorded(rotated(current, f"pl{now:%Y%m%d%H%M%S}", private_key, public_key), current)
            updated = updated.model_copy(update={"next_check_at": now})  # the schedule looks for it at once
            details = f"next selector {updated.next_dkim_selector}"
            return updated, self._audit(principal.actor(), updated, "domain.dkim_rotated", now, details)

        return self._view(principal, self._write(principal.account.id, domain_id, change))

    def delete(self, principal: Principal, domain_id: str) -> DeleteConfirmation:
        domain = self._owned(principal, domain_id)
        self._domains.delete_domain(domain, self._audit(principal.actor(), domain, "domain.deleted", self._clock.now()))
        if self._identities is not None:
            self._identities.delete(domain)
        return DeleteConfirmation(message=f"Sending domain {domain.domain} deleted; it no longer sends.")

    def verify(self, principal: Principal, domain_id: str) -> Domain:
        """Checks the domain's records now (the owner has just published them)."""
        self._owned(principal, domain_id)
        return self._view(principal, self._write(principal.account.id, domain_id, self._checking(principal.actor())))

    # -- shared with the company ----------------------------------------------------------------------

    def _shared(self, principal: Principal) -> list[tuple[SendingDomain, Account]]:
        """The domains the organisation's other workspaces share with the company, then those outside
        accounts grant this one (external_accounts), with their owner."""
        if self._organisation is None:
            return []
        company = [
            (domain, owner)
            for owner in self._organisation.other_workspaces(principal.account)
            for domain in self._domains.list_domains(owner.id)
            if domain.shared_with_company
        ]
        seen = {domain.id for domain, _ in company}
        granted = []
        for domain in self._domains.granted_domains(principal.account.id):
            owner = self._organisation.account(domain.account_id)
            if domain.id not in seen and owner is not None and owner.blocked_code() is None:
                granted.append((domain, owner))
        return company + granted

    def _external(self, account_id: str, accounts: list[str]) -> dict[str, object]:
        """The changes naming `accounts` (ids, in order, once each) as the outside accounts granted
        sending from a domain of `account_id`: each an existing account other than the owner."""
        named = list(dict.fromkeys(accounts))
        if len(named) > MAX_EXTERNAL_ACCOUNTS:
            raise ValidationFailed(f"external_accounts: at most {MAX_EXTERNAL_ACCOUNTS} accounts.")
        for other in named:
            if other == account_id:
                raise ValidationFailed("external_accounts: the domain's own account needs no grant.")
            found = self._organisation.account(other) if self._organisation is not None else None
            if found is None or found.status is AccountStatus.TRASHED:
                raise ValidationFailed(f"external_accounts: no account {other}.")
        return {"external_accounts": named, "shared_external": bool(named)}

    def _owned(self, principal: Principal, domain_id: str) -> SendingDomain:
        """The account's own domain; 403 for one another workspace shares with it, 404 otherwise."""
        domain = self._domains.get_domain(principal.account.id, domain_id)
        if domain is not None:
            return domain
        shared = next((owner for d, owner in self._shared(principal) if d.id == domain_id), None)
        if shared is not None:
            raise Forbidden(
                f"Sending domain {domain_id} is shared with this workspace by {shared.name or shared.id}: "
                "only its owner workspace changes, checks, rotates or deletes it.",
                code=OWNER_ONLY,
            )
        raise NotFound(f"No sending domain {domain_id} in this account.")

    def _shared_view(self, domain: SendingDomain, owner: Account, mode: str) -> Domain:
        """Read-only, saying whose; its reputation is its owner's mail from it (the owner's roll-ups);
        the owner's grants to other accounts are the owner's to see."""
        view = domain_view(domain, reputation=self._scored(owner.id, mode).get(domain.domain.lower()))
        name = view.owner_workspace_name or owner.name or owner.id
        return view.model_copy(update={"owner_workspace_name": name, "external_accounts": None})

    # -- the schedule -----------------------------------------------------------------------------------

    def recheck_due(self, limit: int = RECHECKS_PER_RUN) -> int:
        """Checks up to `limit` domains whose next check is due; returns how many it wrote. A domain a
        concurrent run (or its owner) wrote meanwhile is skipped: that write moved its next check.

        The owner's warning that a record went is sent before the check that starts the grace is
        saved: a run that dies in between warns again at the next run (at least once), where warning
        after the save lost it (the saved grace is not a loss any more). A warning that could not be
        sent leaves the domain unsaved, so still due: the next run checks and warns again."""
        written = 0
        for current in self._domains.due_domains(self._clock.now(), limit):
            checked = self._check(current)
            try:
                self._warn_if_lost(current, checked)
            except Exception:
                logger.exception("warning the owner of %s failed; the next run checks it again", current.domain)
                continue
            audit = None
            if checked.status is not current.status:
                audit = self._audit(
                    Actor.system(), checked, "domain.status_changed", self._clock.now(), _move(current, checked)
                )
            elif losing_record(current, checked):
                audit = self._audit(Actor.system(), checked, "domain.record_lost", self._clock.now(), _missing(checked))
            saved = self._domains.save_domain(
                checked, expected_revision=current.revision, audit=audit, rekeyed=_rekeyed(current, checked)
            )
            if saved:
                written += 1
        return written

    # -- the operator ---------------------------------------------------------------------------------

    def account_domains(self, account_id: str) -> DomainList:
        domains = self._domains.list_domains(account_id)
        return DomainList(items=[domain_view(domain) for domain in domains], total_count=len(domains))

    def account_domain(self, account_id: str, domain_id: str) -> Domain:
        return domain_view(self._stored(account_id, domain_id))

    def set_sharing(
        self,
        account_id: str,
        domain_id: str,
        *,
        with_company: bool | None = None,
        external_accounts: list[str] | None = None,
        owner_workspace_name: str | None = None,
    ) -> Domain:
        """The operator's sharing (the owner's is PATCH /v3/domains/{id}); None leaves a field as it is
        ([] revokes every external grant, "" clears the workspace)."""
        changes: dict[str, object] = {}
        if with_company is not None:
            changes["shared_with_company"] = with_company
        if external_accounts is not None:
            changes.update(self._external(account_id, external_accounts))
        if owner_workspace_name is not None:
            changes["owner_workspace_name"] = owner_workspace_name or None

        def change(current: SendingDomain) -> Written:
            updated = current.model_copy(update=changes)
            details = ", ".join(f"{name}={getattr(updated, name)}" for name in sorted(changes))
            return updated, self._audit(Actor.staff(), updated, "domain.sharing_changed", self._clock.now(), details)

        return domain_view(self._write(account_id, domain_id, change))

    def purge_domains(self, account_id: str, limit: int) -> int:
        """A deleted subaccount's purge (subaccounts/purge_service.py): deletes up to `limit` of its
        domains, with their grants and provider identities, audited in its log as the system's."""
        deleted = 0
        for domain in self._domains.list_domains(account_id)[:limit]:
            audit = self._audit(Actor.system(), domain, "domain.deleted", self._clock.now(), "subaccount deleted")
            try:
                self._domains.delete_domain(domain, audit)
            except NotFound:  # deleted meanwhile
                continue
            if self._identities is not None:
                self._identities.delete(domain)
            deleted += 1
        return deleted

    def count_domains(self, account_id: str) -> int:
        """A deleted subaccount's purge counts its domains before deleting them."""
        return len(self._domains.list_domains(account_id))

    def recheck(self, account_id: str, domain_id: str) -> SendingDomain:
        """The operator's forced check of one domain."""
        return self._write(account_id, domain_id, self._checking(Actor.staff()))

    # -- checks -----------------------------------------------------------------------------------------

    def _tracking_host_free(self, domain: SendingDomain) -> None:
        """ValidationFailed when the tracking CNAME would share its host with another of the domain's records."""
        clashes = tracking_host_clashes(domain, self._settings)
        if clashes:
            records = " and its ".join(f"{record.purpose.value} {record.type.value} record" for record in clashes)
            raise ValidationFailed(
                f"tracking_subdomain: {domain.tracking_host} is the host of the domain's {records}, and a CNAME "
                "can have no other record beside it; choose another name (links, track...)."
            )

    def _expected(self, domain: SendingDomain) -> list[DnsRecord]:
        return expected_records(domain, self._settings)

    def _recorded(self, updated: SendingDomain, current: SendingDomain) -> SendingDomain:
        """`updated` with the records it asks for: those it shares with `current` as last checked, a
        new one (a tracking host, a rotation's key) unchecked until the next check."""
        checked = {(record.purpose, record.host): record for record in current.records}
        records = [checked.get((record.purpose, record.host), record) for record in self._expected(updated)]
        return updated.model_copy(update={"records": records})

    def _check(self, domain: SendingDomain) -> SendingDomain:
        records = [self._check_record(domain, record) for record in self._expected(domain)]
        provider_ok = self._identities.dkim_verified(domain) if self._identities is not None else True
        checked = after_check(domain, records, self._clock.now(), provider_ok=provider_ok)
        if self._identities is not None and checked.dkim_selector != domain.dkim_selector:
            self._identities.signing_key_changed(checked)
        return checked

    def _check_record(self, domain: SendingDomain, expected: DnsRecord) -> DnsRecord:
        found = compare(expected, self._lookup.lookup(expected.host, expected.type))
        if found.finding is not Finding.MISSING or found.purpose is RecordPurpose.DMARC:
            return found
        doubled = f"{expected.host}.{domain.domain}"
        return appended_twice(expected, domain.domain, self._lookup.lookup(doubled, expected.type)) or found

    def _warn_if_lost(self, before: SendingDomain, after: SendingDomain) -> None:
        if not losing_record(before, after):
            return
        missing = _missing(after)
        hours = int(GRACE.total_seconds() // 3600)
        self._notices.email_owner_or_raise(
            after.account_id,
            f"Sending domain {after.domain} lost a DNS record",
            f"The last check of {after.domain} did not find: {missing}.\n"
            f"It keeps sending for {hours} hours; publish the record again before then, or its status "
            f"becomes unverified and live sends from it are rejected (domain_not_verified).",
        )

    def _checking(self, actor: Actor) -> Callable[[SendingDomain], Written]:
        """The change a check on request makes: its findings, audited as domain.checked with the move."""

        def change(current: SendingDomain) -> Written:
            checked = self._check(current)
            return checked, self._audit(actor, checked, "domain.checked", self._clock.now(), _move(current, checked))

        return change

    def _write(
        self, account_id: str, domain_id: str, change: Callable[[SendingDomain], Written | None]
    ) -> SendingDomain:
        """Reads the domain, applies `change` and writes the result if nothing else wrote the domain
        meanwhile; when something did (a scheduled check, another edit), reads and applies again
        rather than overwrite it."""
        for _ in range(WRITE_ATTEMPTS):
            current = self._stored(account_id, domain_id)
            written = change(current)
            if written is None:
                return current
            updated, audit = written
            rekeyed = _rekeyed(current, updated)
            granted = [a for a in updated.external_accounts if a not in current.external_accounts]
            revoked = [a for a in current.external_accounts if a not in updated.external_accounts]
            once = [a for a in (*current.revoked_accounts, *revoked) if a not in updated.external_accounts]
            updated = updated.model_copy(update={"revoked_accounts": list(dict.fromkeys(once))})
            saved = self._domains.save_domain(
                updated,
                expected_revision=current.revision,
                audit=audit,
                rekeyed=rekeyed,
                granted=granted,
                revoked=revoked,
            )
            if saved:
                try:  # the owner asked for this check and has its answer: the warning is not retried
                    self._warn_if_lost(current, updated)
                except Exception:
                    logger.exception("warning the owner of %s failed", updated.domain)
                return updated
        raise Conflict(f"sending domain {domain_id} keeps changing; retry")

    def _stored(self, account_id: str, domain_id: str) -> SendingDomain:
        domain = self._domains.get_domain(account_id, domain_id)
        if domain is None:
            raise NotFound(f"No sending domain {domain_id} in this account.")
        return domain

    def _audit(
        self, actor: Actor, domain: SendingDomain, action: str, now: datetime, details: str | None = None
    ) -> AuditEntry:
        summary = f"{domain.domain}; {details}" if details else domain.domain
        return new_audit_entry(self._ids, actor, domain.account_id, action, domain.id, summary, now=now)


def _missing(domain: SendingDomain) -> str:
    return ", ".join(f"{r.type} {r.host}" for r in domain.records if r.purpose in REQUIRED and not r.ok)


def _rekeyed(before: SendingDomain, after: SendingDomain) -> bool:
    return (before.dkim_selector, before.next_dkim_selector) != (after.dkim_selector, after.next_dkim_selector)


def _move(before: SendingDomain, after: SendingDomain) -> str:
    if after.status is before.status:
        return f"status {after.status.value}" + (" (grace: a required record is missing)" if after.lost_at else "")
    return f"status {before.status.value} -> {after.status.value}"
