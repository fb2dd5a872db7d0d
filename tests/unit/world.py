"""One account universe for unit tests: the in-memory fakes and every service wired to them."""

from __future__ import annotations

from dataclasses import dataclass

from postline.accounts.domain import Account, AccountStatus, Plan
from postline.audit.service import AuditService
from postline.auth.service import Authenticator
from postline.auth.speculation import AdmittedPrincipals
from postline.keys.access import Environment, Scope
from postline.keys.domain import AllowlistEntry
from postline.keys.identity import Principal
from postline.keys.models import KeyCreated
from postline.keys.service import KeyService
from postline.operator.service import OperatorService
from postline.subaccounts.service import SubaccountService
from postline.usage.service import UsageService
from tests.fakes.auth import FakeConsoleVerifier
from tests.fakes.keys import FakeHasher, InMemoryStore
from tests.fakes.shared import FixedClock, RecordingMeter, SequentialIds
from tests.fakes.subaccounts import InMemorySubaccounts
from tests.fakes.usage import InMemoryCounters


@dataclass
class World:
    """One account universe: fakes plus every service wired to them, as the wiring roots do with adapters."""

    store: InMemoryStore
    subaccount_store: InMemorySubaccounts
    counters: InMemoryCounters
    clock: FixedClock
    ids: SequentialIds
    hasher: FakeHasher
    console: FakeConsoleVerifier
    meter: RecordingMeter
    keys: KeyService
    auth: Authenticator
    operator: OperatorService
    audit: AuditService
    usage: UsageService
    subaccounts: SubaccountService

    def account(self, *, plan: Plan = Plan.FREE, status: AccountStatus = AccountStatus.ACTIVE) -> Account:
        return self.operator.create_account(name="Acme", plan=plan, status=status, owner_email="owner@acme.test")

    def key(
        self,
        account: Account,
        *,
        env: Environment = Environment.LIVE,
        scope: Scope = Scope.FULL_ACCESS,
        ip_allowlist: list[AllowlistEntry] | None = None,
    ) -> KeyCreated:
        return self.operator.create_key(account.id, name="ci", env=env, scope=scope, ip_allowlist=ip_allowlist)

    def console_principal(self, account: Account) -> Principal:
        """The caller as a dashboard user (console JWT): no key, full access, live."""
        return Principal(account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE, user_id="usr_owner")


def build_world() -> World:
    store, counters, clock = InMemoryStore(), InMemoryCounters(), FixedClock()
    ids, hasher, console, meter = SequentialIds(), FakeHasher(), FakeConsoleVerifier(), RecordingMeter()
    keys = KeyService(keys=store, hasher=hasher, ids=ids, clock=clock)
    subaccounts = InMemorySubaccounts(store)
    return World(
        store=store,
        subaccount_store=subaccounts,
        counters=counters,
        clock=clock,
        ids=ids,
        hasher=hasher,
        console=console,
        meter=meter,
        keys=keys,
        auth=Authenticator(
            keys=store,
            accounts=store,
            subaccounts=subaccounts,
            counters=counters,
            hasher=hasher,
            clock=clock,
            console=console,
            meter=meter,
            admitted=AdmittedPrincipals(),
        ),
        operator=OperatorService(
            accounts=store, keys=store, key_service=keys, ids=ids, clock=clock, subaccounts=subaccounts
        ),
        audit=AuditService(audit=store),
        usage=UsageService(counters=counters, clock=clock, accounts=store),
        subaccounts=SubaccountService(subaccounts=subaccounts, keys=store, ids=ids, clock=clock),
    )
