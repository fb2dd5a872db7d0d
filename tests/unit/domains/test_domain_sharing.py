"""Sharing a sending domain through the API (PATCH /v3/domains/{id}): the owner workspace shares it
with its company and grants named outside accounts (external_accounts); the grantees list and read
it read-only, send from it (OrganisationDomains), and get 403 for the owner's actions; a revoked
grant stops the next send. Over in-memory fakes."""

from __future__ import annotations

import pytest

from postline.accounts.domain import Plan
from postline.domains.domain import DomainStatus
from postline.domains.models import DomainUpdate
from postline.domains.organisation import OrganisationDomains
from postline.domains.service import OWNER_ONLY, DomainService
from postline.keys.identity import Principal
from postline.shared.errors import Forbidden, NotFound, ValidationFailed
from postline.subaccounts.organisation import Organisation
from tests.fakes.domains import FixedDkimKeys, InMemoryDomains, RecordingNotices, ZoneLookup
from tests.unit.domains.test_domain_service import PUBLIC_KEY, SETTINGS
from tests.unit.world import World


class Shared:
    def __init__(self, world: World) -> None:
        self.world = world
        self.domains = InMemoryDomains()
        organisation = Organisation(accounts=world.store, subaccounts=world.subaccount_store)
        self.service = DomainService(
            domains=self.domains,
            lookup=ZoneLookup(),
            keys=FixedDkimKeys("-----BEGIN PRIVATE KEY-----\n...", PUBLIC_KEY),
            notices=RecordingNotices(),
            settings=SETTINGS,
            identities=None,
            ids=world.ids,
            clock=world.clock,
            organisation=organisation,
        )
        self.sending = OrganisationDomains(self.domains, organisation, grants=self.domains)
        self.owner = world.console_principal(world.account(plan=Plan.PROFESSIONAL))
        self.outsider = world.console_principal(world.account(plan=Plan.PROFESSIONAL))
        self.stranger = world.console_principal(world.account(plan=Plan.PROFESSIONAL))
        created = self.service.create(self.owner, _create("brand.example"))
        stored = self.domains.domains[(self.owner.account.id, "brand.example")]
        self.domains.domains[(self.owner.account.id, "brand.example")] = stored.model_copy(
            update={"status": DomainStatus.VERIFIED}
        )
        self.domain_id = created.id

    def share(self, principal: Principal | None = None, **fields: object) -> object:
        return self.service.update(principal or self.owner, self.domain_id, DomainUpdate.model_validate(fields))


def _create(name: str) -> object:
    from postline.domains.models import DomainCreate

    return DomainCreate(domain=name)


@pytest.fixture
def shared(world: World) -> Shared:
    return Shared(world)


def test_the_owner_grants_an_outside_account_which_sends_reads_and_cannot_change_it(shared: Shared) -> None:
    outsider = shared.outsider.account.id
    assert not shared.sending.is_verified(outsider, "brand.example")
    with pytest.raises(NotFound):
        shared.service.get(shared.outsider, shared.domain_id)

    view = shared.share(external_accounts=[outsider, outsider])
    assert (view.shared_external, view.external_accounts, view.shared_with_company) == (True, [outsider], False)  # type: ignore[attr-defined]
    assert shared.domains.audit[-1].action == "domain.updated"
    assert "external_accounts" in (shared.domains.audit[-1].details or "")

    # The grantee sends from it (signed as the owner's, counted on the owner's domain) and reads it.
    assert shared.sending.is_verified(outsider, "brand.example")
    found = shared.sending.verified_domain(outsider, "brand.example")
    assert found is not None and found.account_id == shared.owner.account.id
    shared.sending.count_sent(outsider, "brand.example", 2)
    assert shared.domains.domains[(shared.owner.account.id, "brand.example")].sent_count == 2
    read = shared.service.get(shared.outsider, shared.domain_id)
    assert (read.shared_external, read.external_accounts, read.owner_workspace_name) == (True, None, "Acme")
    assert [d.id for d in shared.service.list_all(shared.outsider).items] == [shared.domain_id]
    with pytest.raises(Forbidden) as refused:
        shared.share(shared.outsider, external_accounts=[])
    assert refused.value.code == OWNER_ONLY
    with pytest.raises(Forbidden):
        shared.service.delete(shared.outsider, shared.domain_id)

    # Another account is granted nothing; revoking stops the grantee's next send at once.
    assert not shared.sending.is_verified(shared.stranger.account.id, "brand.example")
    with pytest.raises(NotFound):
        shared.service.get(shared.stranger, shared.domain_id)
    revoked = shared.share(external_accounts=None)
    assert (revoked.shared_external, revoked.external_accounts) == (False, [])  # type: ignore[attr-defined]
    assert not shared.sending.is_verified(outsider, "brand.example")
    with pytest.raises(NotFound):
        shared.service.get(shared.outsider, shared.domain_id)


def test_sharing_with_the_company_through_the_api_reaches_every_workspace(shared: Shared) -> None:
    sub = shared.world.subaccounts.create(shared.owner, _sub("acme"))
    sub_principal = shared.world.console_principal(shared.world.store.get_account(sub.id))  # type: ignore[arg-type]
    assert not shared.sending.is_verified(sub.id, "brand.example")
    assert shared.share(shared_with_company=True).shared_with_company is True  # type: ignore[attr-defined]
    assert shared.sending.is_verified(sub.id, "brand.example")
    assert shared.service.get(sub_principal, shared.domain_id).owner_workspace_name == "Acme"
    assert not shared.sending.is_verified(shared.outsider.account.id, "brand.example")  # outside the company
    shared.share(shared_with_company=False)
    assert not shared.sending.is_verified(sub.id, "brand.example")


def test_delivery_still_signs_what_was_accepted_once_the_domain_is_unshared_or_the_grant_revoked(
    shared: Shared,
) -> None:
    """Screening (a new send) follows the sharing as it is now; delivery (accepted=True) finds the
    owner's domain for a message accepted while it was shared or granted, and counts it on the owner's."""
    organisation = Organisation(accounts=shared.world.store, subaccounts=shared.world.subaccount_store)
    delivery = OrganisationDomains(shared.domains, organisation, grants=shared.domains, accepted=True)
    sub = shared.world.subaccounts.create(shared.owner, _sub("acme"))
    outsider = shared.outsider.account.id
    shared.share(shared_with_company=True, external_accounts=[outsider])
    shared.share(shared_with_company=False, external_accounts=[])
    for account_id in (sub.id, outsider):
        assert not shared.sending.is_verified(account_id, "brand.example")
        found = delivery.verified_domain(account_id, "brand.example")
        assert found is not None and found.account_id == shared.owner.account.id
        delivery.count_sent(account_id, "brand.example")
    assert shared.domains.domains[(shared.owner.account.id, "brand.example")].sent_count == 2
    assert delivery.verified_domain(shared.stranger.account.id, "brand.example") is None  # never shared with it


def test_bad_sharing_requests_are_refused(shared: Shared) -> None:
    for fields, words in (
        ({"external_accounts": [shared.owner.account.id]}, "own account"),
        ({"external_accounts": ["acct_nobody"]}, "no account acct_nobody"),
        ({"shared_with_company": None}, "not null"),
    ):
        with pytest.raises(ValidationFailed) as refused:
            shared.share(**fields)
        assert words in refused.value.message
    with pytest.raises(ValueError, match="at most 25"):  # the model's bound: 400 validation_error at the route
        DomainUpdate.model_validate({"external_accounts": [f"acct_{n}" for n in range(26)]})
    assert shared.domains.audit[-1].action == "domain.created"  # nothing written


def test_a_deleted_domain_grants_nothing(shared: Shared) -> None:
    shared.share(external_accounts=[shared.outsider.account.id])
    shared.service.delete(shared.owner, shared.domain_id)
    assert not shared.sending.is_verified(shared.outsider.account.id, "brand.example")
    assert shared.service.list_all(shared.outsider).total_count == 0


def _sub(slug: str) -> object:
    from postline.subaccounts.models import SubaccountCreate

    return SubaccountCreate(name=slug.title(), slug=slug)


def test_the_domain_remembers_revoked_grants_until_it_is_deleted(shared: Shared) -> None:
    """A revoked grant's marker outlives the grant (delivery of what it accepted), and the domain
    lists whose, so deleting it can delete them; a grant given again is no longer revoked."""
    outsider, stranger = shared.outsider.account.id, shared.stranger.account.id
    stored = lambda: shared.domains.domains[(shared.owner.account.id, "brand.example")]  # noqa: E731
    shared.share(external_accounts=[outsider, stranger])
    shared.share(external_accounts=[stranger])
    assert stored().revoked_accounts == [outsider]
    shared.share(external_accounts=[outsider])
    assert stored().revoked_accounts == [stranger]
    shared.share(shared_with_company=True)  # a change that grants and revokes nothing keeps the list
    assert stored().revoked_accounts == [stranger]
    organisation = Organisation(accounts=shared.world.store, subaccounts=shared.world.subaccount_store)
    delivery = OrganisationDomains(shared.domains, organisation, grants=shared.domains, accepted=True)
    assert delivery.verified_domain(stranger, "brand.example") is not None
    shared.service.delete(shared.owner, shared.domain_id)
    assert delivery.verified_domain(stranger, "brand.example") is None
