"""The domain service over in-memory fakes on a movable clock: create, checks, the status machine
(partial, failed, verified, 72-hour timeout, grace and unverified, re-verify), the re-check
schedule with back-off, plan limit and account scoping."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from postline.accounts.domain import Plan
from postline.domains.domain import DnsSettings, DomainStatus, RecordType, SendingDomain
from postline.domains.models import Domain, DomainCreate, DomainUpdate
from postline.domains.service import DomainService
from postline.keys.identity import Principal
from postline.shared.errors import Forbidden, NotFound, ValidationFailed
from tests.fakes.domains import FixedDkimKeys, InMemoryDomains, RecordingNotices, ScriptedIdentities, ZoneLookup
from tests.unit.world import World

SETTINGS = DnsSettings(spf_include="spf.postline.dev", bounce_mx="bounces.postline.dev", tracking_host="t.postline.dev")
PUBLIC_KEY = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + "q" * 300


class Setup:
    def __init__(self, world: World, identities: ScriptedIdentities | None = None) -> None:
        self.world = world
        self.domains = InMemoryDomains()
        self.dns = ZoneLookup()
        self.notices = RecordingNotices()
        self.service = DomainService(
            domains=self.domains,
            lookup=self.dns,
            keys=FixedDkimKeys("-----BEGIN PRIVATE KEY-----\n...", PUBLIC_KEY),
            notices=self.notices,
            settings=SETTINGS,
            identities=identities,
            ids=world.ids,
            clock=world.clock,
        )
        self.principal = self.new_principal(Plan.PROFESSIONAL)

    def new_principal(self, plan: Plan = Plan.FREE) -> Principal:
        return self.world.console_principal(self.world.account(plan=plan))

    def create(self, name: str = "acme.example", principal: Principal | None = None) -> Domain:
        return self.service.create(principal or self.principal, DomainCreate(domain=name))

    def publish(self, created: Domain, *purposes: str) -> None:
        for record in created.dns_records:
            if record.purpose.value in purposes:
                self.dns.publish(record.host, record.type, record.value)

    def unpublish(self, created: Domain, purpose: str) -> None:
        for record in created.dns_records:
            if record.purpose.value == purpose:
                self.dns.remove(record.host, record.type)

    def verify(self, created: Domain) -> Domain:
        return self.service.verify(self.principal, created.id)

    def advance(self, delta: timedelta) -> None:
        self.world.clock.advance(delta.total_seconds())

    def actions(self) -> list[str]:
        return [entry.action for entry in self.domains.audit]


REQUIRED = ("dkim", "spf", "return_path_mx")


@pytest.fixture
def setup(world: World) -> Setup:
    return Setup(world)


def test_a_new_domain_is_pending_with_its_records_unchecked_and_audited(setup: Setup) -> None:
    created = setup.create("Acme.Example")
    assert (created.domain, created.status, created.dkim_selector) == ("acme.example", DomainStatus.PENDING, "pl202503")
    assert (created.spf, created.dkim, created.dmarc, created.sent_count, created.verified_at) == (False,) * 3 + (
        0,
        None,
    )
    assert [r.status.value for r in created.dns_records] == ["unchecked"] * 4
    assert PUBLIC_KEY in created.dns_records[0].value and "PRIVATE" not in created.model_dump_json()
    assert setup.actions() == ["domain.created"]


def test_some_records_partially_verify_all_required_verify(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, "dkim")
    partial = setup.verify(created)
    assert (partial.status, partial.dkim, partial.spf) == (DomainStatus.PARTIALLY_VERIFIED, True, False)
    setup.publish(created, "spf", "return_path_mx")
    verified = setup.verify(created)
    assert (verified.status, verified.spf, verified.dmarc) == (DomainStatus.VERIFIED, True, False)  # DMARC optional
    assert verified.verified_at == setup.world.clock.now()
    assert setup.actions() == ["domain.created", "domain.checked", "domain.checked"]
    assert setup.domains.audit[-1].details == "acme.example; status partially_verified -> verified"


def test_a_wrong_value_fails_verification_and_names_what_was_found(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, "dkim", "return_path_mx")
    spf_host = next(r.host for r in created.dns_records if r.purpose.value == "spf")
    setup.dns.publish(spf_host, RecordType.TXT, "v=spf1 include:_spf.google.com ~all")
    failed = setup.verify(created)
    assert failed.status is DomainStatus.VERIFICATION_FAILED
    [spf] = [r for r in failed.dns_records if r.purpose.value == "spf"]
    assert (spf.ok, spf.status.value, spf.detail) == (False, "mismatch", "found: v=spf1 include:_spf.google.com ~all")


def test_a_record_under_the_domain_appended_twice_is_detected(setup: Setup) -> None:
    created = setup.create()
    dkim = created.dns_records[0]
    setup.dns.publish(f"{dkim.host}.acme.example", RecordType.TXT, dkim.value)
    checked = setup.verify(created)
    assert checked.status is DomainStatus.VERIFICATION_FAILED
    assert (checked.dns_records[0].status.value, checked.dkim) == ("domain_appended_twice", False)


def test_nothing_verified_within_72_hours_times_out_and_scheduled_checks_stop(setup: Setup) -> None:
    created = setup.create()
    setup.advance(timedelta(hours=71, minutes=59))
    setup.service.recheck_due()
    assert setup.service.get(setup.principal, created.id).status is DomainStatus.PENDING
    setup.advance(timedelta(hours=3))
    assert setup.service.recheck_due() == 1
    assert setup.service.get(setup.principal, created.id).status is DomainStatus.VERIFICATION_TIMEOUT
    assert setup.domains.audit[-1].action == "domain.status_changed"
    assert setup.domains.audit[-1].actor_type.value == "system"
    setup.advance(timedelta(days=30))
    assert setup.service.recheck_due() == 0  # only its owner's check now
    setup.publish(created, *REQUIRED)
    assert setup.verify(created).status is DomainStatus.VERIFIED  # and that still verifies it


def test_pending_domains_are_rechecked_with_back_off(setup: Setup) -> None:
    setup.create()
    gaps = []
    for _ in range(7):
        [due] = setup.domains.due_domains(setup.world.clock.now() + timedelta(days=1), 10)
        assert due.next_check_at is not None
        gaps.append((due.next_check_at - setup.world.clock.now()).total_seconds() / 60)
        setup.world.clock.set(due.next_check_at)
        assert setup.service.recheck_due() == 1
    assert gaps == [0, 5, 10, 20, 40, 80, 120]  # minutes: at once, then doubling up to 2 hours


def test_a_verified_domain_losing_a_record_keeps_sending_for_72_hours_then_is_unverified(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, *REQUIRED)
    setup.verify(created)
    setup.unpublish(created, "spf")
    setup.advance(timedelta(days=1))
    assert setup.service.recheck_due() == 1
    in_grace = setup.service.get(setup.principal, created.id)
    assert (in_grace.status, in_grace.spf) == (DomainStatus.VERIFIED, False)
    [(account_id, subject, text)] = setup.notices.sent  # the owner is warned once, at the loss
    assert account_id == setup.principal.account.id and "acme.example" in subject and "TXT pm-bounces" in text
    assert (setup.actions()[-1], setup.domains.audit[-1].details) == (
        "domain.record_lost",
        "acme.example; TXT pm-bounces.acme.example",
    )
    setup.advance(timedelta(hours=71))
    setup.service.recheck_due()  # hourly during the grace
    assert setup.service.get(setup.principal, created.id).status is DomainStatus.VERIFIED
    assert len(setup.notices.sent) == 1
    setup.advance(timedelta(hours=1))
    setup.service.recheck_due()
    assert setup.service.get(setup.principal, created.id).status is DomainStatus.UNVERIFIED
    assert setup.domains.audit[-1].details == "acme.example; status verified -> unverified"
    setup.publish(created, "spf")
    back = setup.verify(created)
    assert (back.status, back.verified_at) == (DomainStatus.VERIFIED, setup.world.clock.now())


def test_a_record_back_within_the_grace_ends_it(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, *REQUIRED)
    setup.verify(created)
    setup.unpublish(created, "dkim")
    setup.verify(created)
    setup.publish(created, "dkim")
    setup.advance(timedelta(hours=80))
    assert setup.verify(created).status is DomainStatus.VERIFIED
    setup.unpublish(created, "dkim")
    assert setup.verify(created).status is DomainStatus.VERIFIED  # a fresh grace
    assert len(setup.notices.sent) == 2


def test_dns_that_does_not_answer_leaves_the_status_alone(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, *REQUIRED)
    setup.verify(created)
    setup.dns.down.add(created.dns_records[0].host)
    setup.advance(timedelta(days=5))
    checked = setup.verify(created)
    assert (checked.status, checked.dns_records[0].status.value) == (DomainStatus.VERIFIED, "lookup_failed")
    assert setup.notices.sent == []


def test_a_tracking_subdomain_adds_its_cname_and_ok_checks_stay(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, "dkim")
    setup.verify(created)
    updated = setup.service.update(setup.principal, created.id, DomainUpdate(tracking_subdomain="Links"))
    assert updated.tracking_subdomain == "links"
    assert [(r.purpose.value, r.status.value) for r in updated.dns_records] == [
        ("dkim", "found"), ("spf", "missing"), ("return_path_mx", "missing"), ("dmarc", "missing"),
        ("tracking", "unchecked"),
    ]  # fmt: skip
    assert updated.dns_records[-1].host == "links.acme.example" and updated.dns_records[-1].value == "t.postline.dev"
    same = setup.service.update(setup.principal, created.id, DomainUpdate(tracking_subdomain="links"))
    assert same == updated and setup.actions()[-1] == "domain.updated"
    assert setup.actions().count("domain.updated") == 1  # no change, no write


def test_a_tracking_subdomain_may_not_be_the_host_of_another_record(setup: Setup) -> None:
    """A CNAME has no other record beside it (RFC 1034 section 3.6.2; RFC 2181 section 10.1): the
    return path's host holds the SPF TXT and the bounce MX."""
    with pytest.raises(ValidationFailed) as refused:
        setup.service.create(setup.principal, DomainCreate(domain="acme.example", tracking_subdomain="PM-Bounces"))
    assert refused.value.message == (
        "tracking_subdomain: pm-bounces.acme.example is the host of the domain's spf TXT record and its "
        "return_path_mx MX record, and a CNAME can have no other record beside it; choose another name "
        "(links, track...)."
    )
    assert setup.service.list_all(setup.principal).total_count == 0  # nothing was created
    created = setup.create()
    with pytest.raises(ValidationFailed):
        setup.service.update(setup.principal, created.id, DomainUpdate(tracking_subdomain="pm-bounces"))
    assert setup.service.get(setup.principal, created.id).tracking_subdomain is None
    assert "domain.updated" not in setup.actions()


def test_plan_limit_duplicates_and_other_accounts(setup: Setup) -> None:
    free = setup.new_principal(Plan.FREE)
    setup.create("one.example", free)
    with pytest.raises(Forbidden) as limit:
        setup.create("two.example", free)
    assert limit.value.code == "plan_limit_reached"
    created = setup.create()
    with pytest.raises(ValidationFailed):
        setup.create("ACME.example")
    with pytest.raises(NotFound):
        setup.service.get(free, created.id)
    with pytest.raises(NotFound):
        setup.service.verify(free, created.id)
    setup.service.delete(setup.principal, created.id)
    assert setup.service.list_all(setup.principal).total_count == 0
    assert setup.actions()[-1] == "domain.deleted"


def test_a_scheduled_check_skips_a_domain_written_meanwhile(setup: Setup) -> None:
    created = setup.create()
    stale = setup.domains.due_domains(setup.world.clock.now(), 10)
    setup.verify(created)  # the owner's check wins the race
    setup.domains.due_domains = lambda now, limit: stale  # type: ignore[method-assign]
    assert setup.service.recheck_due() == 0


def test_a_dkim_rotation_signs_with_the_new_key_once_its_record_is_found(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, *REQUIRED)
    setup.verify(created)
    setup.advance(timedelta(days=40))
    rotating = setup.service.rotate_dkim(setup.principal, created.id)
    [old, new] = [r for r in rotating.dns_records if r.purpose.value in ("dkim", "dkim_next")]
    assert (old.host, old.ok) == ("pl202503._domainkey.acme.example", True)
    assert (new.host, new.status.value) == ("pl20250423120000._domainkey.acme.example", "unchecked")
    assert setup.actions()[-1] == "domain.dkim_rotated"

    waiting = setup.verify(rotating)  # the new record is not published yet: the old key signs on
    assert (waiting.status, waiting.dkim_selector) == (DomainStatus.VERIFIED, "pl202503")
    assert [r.status.value for r in waiting.dns_records if r.purpose.value == "dkim_next"] == ["missing"]

    setup.publish(rotating, "dkim_next")
    setup.unpublish(created, "dkim")  # removing the old one first is fine: the new one is there
    switched = setup.verify(rotating)
    assert (switched.status, switched.dkim_selector, switched.dkim) == (DomainStatus.VERIFIED, "pl20250423120000", True)
    assert [r.purpose.value for r in switched.dns_records] == ["dkim", "spf", "return_path_mx", "dmarc"]
    stored = setup.domains.get_domain(setup.principal.account.id, created.id)
    assert stored is not None and (stored.next_dkim_selector, stored.next_dkim_private_key) == (None, None)


def test_where_ses_sends_the_identity_is_made_and_its_dkim_verdict_is_required(world: World) -> None:
    ses = ScriptedIdentities()
    setup = Setup(world, ses)
    created = setup.create()
    assert ses.asked == ["acme.example"] and ses.signing == {"acme.example": "pl202503"}  # made at create
    setup.publish(created, *REQUIRED)
    assert setup.verify(created).status is DomainStatus.PARTIALLY_VERIFIED  # SES has not seen it yet
    ses.verified.add("acme.example")
    assert setup.verify(created).status is DomainStatus.VERIFIED
    setup.advance(timedelta(days=1))
    rotating = setup.service.rotate_dkim(setup.principal, created.id)
    setup.publish(rotating, "dkim_next")
    switched = setup.verify(created)
    assert ses.signing == {"acme.example": switched.dkim_selector} and switched.dkim_selector != "pl202503"
    setup.service.delete(setup.principal, created.id)
    assert ses.deleted == ["acme.example"]


def test_an_owners_write_racing_a_scheduled_check_reads_again_instead_of_overwriting(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, *REQUIRED)
    save = setup.domains.save_domain
    raced: list[int] = []

    def check_first(domain: SendingDomain, **kwargs: Any) -> bool:
        if domain.region and not raced:  # the schedule's check lands between this edit's read and write
            raced.append(setup.service.recheck_due())
        return save(domain, **kwargs)

    setup.domains.save_domain = check_first  # type: ignore[method-assign]
    updated = setup.service.update(setup.principal, created.id, DomainUpdate(region="eu-west-1"))
    assert raced == [1] and (updated.status, updated.region) == (DomainStatus.VERIFIED, "eu-west-1")
    assert setup.actions() == ["domain.created", "domain.status_changed", "domain.updated"]


class RunDied(BaseException):
    """The scheduled run's invocation dying (not an error the service catches)."""


def test_a_run_that_dies_right_after_saving_the_loss_has_warned_the_owner(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, *REQUIRED)
    setup.verify(created)
    setup.unpublish(created, "spf")
    setup.advance(timedelta(days=1))
    save = setup.domains.save_domain

    def save_then_die(domain: SendingDomain, **kwargs: Any) -> bool:
        save(domain, **kwargs)
        raise RunDied

    setup.domains.save_domain = save_then_die  # type: ignore[method-assign]
    with pytest.raises(RunDied):
        setup.service.recheck_due()
    setup.domains.save_domain = save  # type: ignore[method-assign]
    assert setup.service.get(setup.principal, created.id).spf is False  # the grace started, saved
    assert [subject for _, subject, _ in setup.notices.sent] == ["Sending domain acme.example lost a DNS record"]
    setup.advance(timedelta(hours=1))
    setup.service.recheck_due()  # the grace's hourly check: nothing new to warn about
    assert len(setup.notices.sent) == 1


def test_a_warning_that_could_not_be_sent_is_sent_by_the_next_run_which_starts_the_grace(setup: Setup) -> None:
    created = setup.create()
    setup.publish(created, *REQUIRED)
    setup.verify(created)
    setup.unpublish(created, "spf")
    setup.advance(timedelta(days=1))
    setup.notices.failing = 1
    assert setup.service.recheck_due() == 0  # not saved: the domain is still due
    assert setup.notices.sent == [] and setup.actions()[-1] != "domain.record_lost"
    setup.advance(timedelta(minutes=5))
    assert setup.service.recheck_due() == 1
    assert len(setup.notices.sent) == 1 and setup.actions()[-1] == "domain.record_lost"
    assert setup.service.get(setup.principal, created.id).spf is False
