"""Subaccounts: create, list, get, rename, suspend, reactivate, delete. Each write is audited twice,
in the same transaction: in the organisation's log and in the subaccount's."""

from __future__ import annotations

import contextlib

from postline.accounts.domain import Account, AccountStatus, Plan, QuotaSource
from postline.audit.domain import AuditEntry
from postline.audit.service import new_audit_entry
from postline.keys.identity import Principal
from postline.keys.models import DeleteConfirmation
from postline.shared.errors import Forbidden, NotFound, ValidationFailed
from postline.shared.pagination import Page, make_page
from postline.shared.ports import Clock, IdFactory
from postline.subaccounts.domain import ORGANISATION_ONLY, PurgeJob
from postline.subaccounts.models import Subaccount, SubaccountCreate, SubaccountUpdate, subaccount_of
from postline.subaccounts.ports import SubaccountKeys, SubaccountStore


class SubaccountService:
    def __init__(self, *, subaccounts: SubaccountStore, keys: SubaccountKeys, ids: IdFactory, clock: Clock) -> None:
        self._subaccounts = subaccounts
        self._keys = keys
        self._ids = ids
        self._clock = clock

    def create(self, principal: Principal, request: SubaccountCreate) -> Subaccount:
        parent = principal.account
        if parent.parent_account_id is not None:
            raise Forbidden("A subaccount cannot have subaccounts of its own.", code=ORGANISATION_ONLY)
        limit = parent.limits.subaccounts
        if limit == 0:
            raise Forbidden(
                f"The {parent.plan.value} plan has no subaccounts; upgrade to create them.", code="plan_limit_reached"
            )
        # A new workspace: on the Free plan, drawing from the organisation's pool (usage/pool.py:
        # the parent's monthly and daily quota), and the organisation's operator controls
        # (sandbox, routing, sending paused) as they are now, so none is escaped by making one.
        account = Account(
            id=self._ids.new_id(),
            name=request.name,
            plan=Plan.FREE,
            quota_source=QuotaSource.SHARED_POOL,
            organisation_plan=parent.plan,  # retention follows the organisation (accounts/domain.py retention_days)
            owner_email=parent.owner_email,
            sending_paused=parent.sending_paused,
            sandbox=parent.sandbox,
            sandbox_recipients=parent.sandbox_recipients,
            routed_to_sandbox=parent.routed_to_sandbox,
            parent_account_id=parent.id,
            slug=request.slug,
            list_count=0,
            created_at=self._clock.now(),
        )
        audits = self._audits(principal, account, "subaccount.created", f"{account.name} ({account.slug})")
        self._subaccounts.create_subaccount(account, max_subaccounts=limit, audits=audits)
        return subaccount_of(account)

    def list_page(self, principal: Principal, *, page: int, per_page: int) -> Page[Subaccount]:
        accounts, total = self._subaccounts.list_subaccounts(principal.account.id, page=page, per_page=per_page)
        return make_page([subaccount_of(a) for a in accounts], page=page, per_page=per_page, total_count=total)

    def get(self, principal: Principal, reference: str) -> Subaccount:
        return subaccount_of(self._require(principal, reference))

    def update(self, principal: Principal, reference: str, request: SubaccountUpdate) -> Subaccount:
        current = self._require(principal, reference)
        changes = request.model_dump(exclude_unset=True)
        if "slug" in changes and changes["slug"] != current.slug:
            raise ValidationFailed(f"slug: a subaccount's slug cannot change (it is {current.slug!r}).")
        if "name" in changes and changes["name"] is None:
            raise ValidationFailed("name cannot be null.")
        if changes.get("name", current.name) == current.name:  # nothing to change: no write, no audit entry
            return subaccount_of(current)
        updated = current.model_copy(update={"name": changes["name"]})
        audits = self._audits(principal, updated, "subaccount.updated", f"name {updated.name}")
        self._subaccounts.update_subaccount(updated, ["name"], audits)
        return subaccount_of(updated)

    def suspend(self, principal: Principal, reference: str) -> Subaccount:
        """Its keys, and the organisation's acting for it, get 403 account_suspended from the next request."""
        current = self._require(principal, reference)
        if current.suspended_by_parent:
            return subaccount_of(current)
        return self._switch(principal, current, suspended=True)

    def reactivate(self, principal: Principal, reference: str) -> Subaccount:
        current = self._require(principal, reference)
        if current.status is AccountStatus.SUSPENDED:
            raise ValidationFailed(
                f"Subaccount {current.id} was suspended by Postline, not by its organisation; ask support."
            )
        if not current.suspended_by_parent:
            return subaccount_of(current)
        return self._switch(principal, current, suspended=False)

    def delete(self, principal: Principal, reference: str) -> DeleteConfirmation:
        """Gone at once (404, out of the list, its slug free again, its keys refused), then each of
        its keys revoked (at most its plan's key limit); its data is purged in the background
        (purge_service.py), from a job stored in the deletion's transaction."""
        current = self._require(principal, reference)
        purge = PurgeJob(
            account_id=current.id,
            parent_account_id=principal.account.id,
            slug=current.slug or "",
            created_at=self._clock.now(),
        )
        self._subaccounts.delete_subaccount(current, self._audits(principal, current, "subaccount.deleted"), purge)
        keys = self._keys.list_keys(current.id)
        for api_key in keys:
            audit = new_audit_entry(
                self._ids,
                principal.actor(),
                current.id,
                "key.deleted",
                api_key.id,
                "revoked: subaccount deleted",
                now=self._clock.now(),
            )
            with contextlib.suppress(NotFound):  # deleted meanwhile
                self._keys.delete_key(api_key, audit)
        return DeleteConfirmation(
            message=f"Subaccount {current.id} ({current.slug}) deleted; its {len(keys)} API keys are revoked. "
            "Its domains, lists, suppressions, templates, webhooks and files are purged in the background "
            "(subaccount.purged in the audit log once done)."
        )

    def _switch(self, principal: Principal, current: Account, *, suspended: bool) -> Subaccount:
        updated = current.model_copy(update={"suspended_by_parent": suspended})
        action = "subaccount.suspended" if suspended else "subaccount.reactivated"
        self._subaccounts.update_subaccount(updated, ["suspended_by_parent"], self._audits(principal, updated, action))
        return subaccount_of(updated)

    def _require(self, principal: Principal, reference: str) -> Account:
        """A subaccount of the caller's account, by id or slug; anything else is 404, as ids are scoped."""
        found = self._subaccounts.find_subaccount(principal.account.id, reference)
        if found is None:
            raise NotFound(f"No subaccount {reference} in this organisation.")
        return found

    def _audits(
        self, principal: Principal, subaccount: Account, action: str, details: str | None = None
    ) -> list[AuditEntry]:
        """The entry in the organisation's log, and the same in the subaccount's."""
        now = self._clock.now()
        return [
            new_audit_entry(self._ids, principal.actor(), account_id, action, subaccount.id, details, now=now)
            for account_id in (principal.account.id, subaccount.id)
        ]
