"""Operator actions on accounts and the platform (the `postline` CLI and the dev bootstrap)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from postline.accounts.domain import Account, AccountStatus, Plan, QuotaSource, StorageAddon, downgrade_changes
from postline.accounts.ports import AccountStore
from postline.audit.domain import Actor, AuditEntry
from postline.audit.service import new_audit_entry
from postline.keys.access import Environment, Scope
from postline.keys.domain import AllowlistEntry
from postline.keys.models import KeyCreated
from postline.keys.ports import KeyStore
from postline.keys.service import KeyService
from postline.shared.addresses import normalize_address
from postline.shared.errors import NotFound, ValidationFailed
from postline.shared.ports import Clock, IdFactory
from postline.subaccounts.organisation import MAX_WORKSPACES
from postline.subaccounts.ports import SubaccountStore

MAX_SANDBOX_RECIPIENTS = 100


class OperatorService:
    def __init__(
        self,
        *,
        accounts: AccountStore,
        keys: KeyStore,
        key_service: KeyService,
        ids: IdFactory,
        clock: Clock,
        subaccounts: SubaccountStore | None = None,
    ) -> None:
        """subaccounts: an organisation's, told its plan as it changes (their inherited retention)."""
        self._subaccounts = subaccounts
        self._accounts = accounts
        self._keys = keys
        self._key_service = key_service
        self._ids = ids
        self._clock = clock

    def create_account(
        self,
        *,
        name: str | None,
        plan: Plan = Plan.FREE,
        status: AccountStatus = AccountStatus.ACTIVE,
        account_id: str | None = None,
        owner_email: str | None = None,
        actor: Actor | None = None,
    ) -> Account:
        account = Account(
            id=account_id or self._ids.new_id("acct_"),
            name=name,
            plan=plan,
            status=status,
            owner_email=owner_email,
            list_count=0,  # counted from the start (the store writes 0 whatever it is given)
            created_at=self._clock.now(),
        )
        self._accounts.create_account(account, self._audit(actor, account.id, "account.created", account.id))
        return account

    def get_account(self, account_id: str) -> Account:
        account = self._accounts.get_account(account_id)
        if account is None:
            raise NotFound(f"account {account_id} not found")
        return account

    def create_key(
        self,
        account_id: str,
        *,
        name: str,
        env: Environment,
        scope: Scope = Scope.FULL_ACCESS,
        ip_allowlist: list[AllowlistEntry] | None = None,
        secret: str | None = None,
        actor: Actor | None = None,
    ) -> KeyCreated:
        account = self.get_account(account_id)
        api_key, secret = self._key_service.new_key(
            account_id=account.id,
            name=name,
            scope=scope,
            env=env,
            secret=secret,
            ip_allowlist=ip_allowlist or [],
        )
        self._keys.create_key(
            api_key,
            max_keys=account.limits.api_keys,
            audit=self._audit(actor, account.id, "key.created", api_key.id),
        )
        return KeyCreated(**api_key.model_dump(include=set(KeyCreated.model_fields)), key=secret)

    def set_status(self, account_id: str, status: AccountStatus, actor: Actor | None = None) -> Account:
        return self._change(account_id, f"account.{status.value}", actor, status=status)

    def set_plan(self, account_id: str, plan: Plan, actor: Actor | None = None) -> Account:
        """A move to a plan with a shorter history records the downgrade: the former window stays for
        a grace (retention/domain.py), so nothing is deleted the day the plan changes."""
        account = self.get_account(account_id)
        changes = downgrade_changes(account, plan, self._clock.now())
        changed = self._change(account_id, "account.plan_changed", actor, f"plan {plan.value}", plan=plan, **changes)
        if self._subaccounts is not None and account.parent_account_id is None:
            subs, _ = self._subaccounts.list_subaccounts(account_id, page=1, per_page=MAX_WORKSPACES)
            for sub in subs:  # the plan bounds them (25 at most)
                self._subaccounts.update_subaccount(sub.model_copy(update={"organisation_plan": plan}),
                                                    ["organisation_plan"], [])  # fmt: skip
        return changed

    def set_rate_limit(self, account_id: str, per_minute: int | None, actor: Actor | None = None) -> Account:
        details = f"rate limit {per_minute}/min" if per_minute else "rate limit: plan default"
        return self._change(account_id, "account.rate_limit_changed", actor, details, rate_limit_per_minute=per_minute)

    def set_storage_addon(self, account_id: str, addon: StorageAddon, actor: Actor | None = None) -> Account:
        """Hosted uploads' storage add-on (accounts/domain.py STORAGE_ADDON_BYTES); Free plans still hold 0."""
        return self._change(account_id, "account.storage_addon_changed", actor, f"storage add-on {addon.value}",
                            storage_addon=addon)  # fmt: skip

    def set_quota_source(
        self, account_id: str, source: QuotaSource, details: str, actor: Actor | None = None
    ) -> Account:
        """Usage's quota_source (usage/pool.py): own_plan, shared_pool (a subaccount) or payg_credits."""
        return self._change(account_id, "account.quota_source_changed", actor, details, quota_source=source)

    def set_verify_before_send(self, account_id: str, on: bool, actor: Actor | None = None) -> Account:
        """The account's default; keys with a setting of their own (not null) keep theirs."""
        details = f"verify_before_send {'on' if on else 'off'}"
        return self._change(account_id, "account.verify_before_send_changed", actor, details, verify_before_send=on)

    # -- the sandbox and routing (sending/screening.py) ----------------------------------------------

    def set_sandbox(self, account_id: str, on: bool, actor: Actor | None = None) -> Account:
        """In the sandbox, live sends reach only the authorized recipients and the owner."""
        return self._change(account_id, "sandbox.entered" if on else "sandbox.left", actor, sandbox=on)

    def add_sandbox_recipients(self, account_id: str, addresses: list[str], actor: Actor | None = None) -> Account:
        current = self.get_account(account_id).sandbox_recipients
        added = [a for a in dict.fromkeys(_sandbox_address(a) for a in addresses) if a not in current]
        if len(current) + len(added) > MAX_SANDBOX_RECIPIENTS:
            raise ValidationFailed(f"a sandbox authorizes at most {MAX_SANDBOX_RECIPIENTS} recipients")
        details = "added: " + ", ".join(added)
        return self._change(
            account_id, "sandbox.recipients_added", actor, details, sandbox_recipients=[*current, *added]
        )

    def remove_sandbox_recipients(self, account_id: str, addresses: list[str], actor: Actor | None = None) -> Account:
        current = self.get_account(account_id).sandbox_recipients
        gone = {_sandbox_address(a) for a in addresses}
        details = "removed: " + ", ".join(sorted(gone & set(current)))
        kept = [a for a in current if a not in gone]
        return self._change(account_id, "sandbox.recipients_removed", actor, details, sandbox_recipients=kept)

    def set_routed_to_sandbox(self, account_id: str, on: bool, actor: Actor | None = None) -> Account:
        """Routes the account's live sends to the simulator, or back."""
        return self._change(account_id, "sandbox.routed" if on else "sandbox.unrouted", actor, routed_to_sandbox=on)

    def set_key_routed_to_sandbox(self, account_id: str, key_id: str, on: bool, actor: Actor | None = None) -> None:
        """Routes one key's live sends to the simulator, or back."""
        api_key = self._keys.get_key(account_id, key_id)
        if api_key is None:
            raise NotFound(f"API key {key_id} not found in account {account_id}")
        routed = api_key.model_copy(update={"routed_to_sandbox": on})
        self._keys.update_key(
            routed, self._audit(actor, account_id, "sandbox.routed" if on else "sandbox.unrouted", key_id)
        )

    def set_sending_paused(self, account_id: str | None, paused: bool, actor: Actor | None = None) -> None:
        """Pause or resume live sending for one account, or for the whole platform when account_id is None."""
        action = "sending.paused" if paused else "sending.resumed"
        if account_id is None:
            self._accounts.set_platform_sending_paused(paused, self._audit(actor, None, action, "platform"))
            return
        self._change(account_id, action, actor, sending_paused=paused)

    def _change(
        self, account_id: str, action: str, actor: Actor | None, details: str | None = None, **changes: Any
    ) -> Account:
        """Validated (model_copy would not validate), stored and audited with the account as target."""
        try:
            account = Account.model_validate({**self.get_account(account_id).model_dump(), **changes})
        except ValidationError as exc:
            raise ValidationFailed(str(exc.errors()[0]["msg"])) from exc
        self._accounts.update_account(account, self._audit(actor, account.id, action, account.id, details))
        return account

    def _audit(
        self, actor: Actor | None, account_id: str | None, action: str, target: str | None, details: str | None = None
    ) -> AuditEntry:
        return new_audit_entry(
            self._ids, actor or Actor.staff(), account_id, action, target, details, now=self._clock.now()
        )


def _sandbox_address(address: str) -> str:
    try:
        return normalize_address(address).lower()
    except ValueError as error:
        raise ValidationFailed(str(error)) from error
