"""ValidationService: the route's window, credits and the test allowance, the checks in order,
the per-domain caches, and test keys answered with no network at all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from postline.accounts.domain import PLAN_LIMITS, Account, Plan
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import PaymentRequired, RateLimited
from postline.shared.mx import MailRoute
from postline.usage.domain import month_key
from postline.verification.domain import MailboxProbe, ProbeOutcome
from postline.verification.models import Activity, ValidateRequest
from postline.verification.service import VALIDATE_LIMIT_PER_MINUTE, ValidationService, Verifier
from tests.fakes.shared import FixedClock, SequentialIds
from tests.fakes.verification import (
    FixedRegistrations,
    InMemoryComplaintLists,
    InMemoryDomainFacts,
    InMemoryVerificationCounters,
    ScriptedProber,
    StaticActivity,
    StaticRoutes,
)
from tests.unit.world import build_world

NOW = datetime(2026, 11, 24, 3, 0, 10, tzinfo=UTC)
ROUTES = {
    "acme.test": MailRoute(mx_hosts=("aspmx.l.google.com", "alt1.aspmx.l.google.com")),
    "catchall.test": MailRoute(mx_hosts=("mx.catchall.test",)),
    "bare.test": MailRoute(has_address=True),
    "nomail.test": MailRoute(null_mx=True),
    "mailinator.com": MailRoute(mx_hosts=("mail.mailinator.com",)),
}


class Harness:
    def __init__(self, *, probes: dict[str, MailboxProbe] | None = None) -> None:
        world = build_world()
        self.account: Account = world.account(plan=Plan.FREE)
        self.routes = StaticRoutes(ROUTES)
        self.prober = ScriptedProber(
            {"catchall.test": MailboxProbe(ProbeOutcome.ACCEPTED, True, "250 OK"), **(probes or {})}
        )
        self.registrations = FixedRegistrations({"acme.test": NOW - timedelta(days=4000)})
        self.facts = InMemoryDomainFacts()
        self.credits = InMemoryVerificationCounters()
        self.clock = FixedClock(NOW)
        self.activity = StaticActivity(
            {(self.account.id, "ada@acme.test"): Activity(seen=True, total_sends=3, delivered=2, bounced=1)}
        )
        self.complaints = InMemoryComplaintLists((self.account.id, "grumpy@acme.test"))
        self.service = ValidationService(
            routes=self.routes,
            prober=self.prober,
            registrations=self.registrations,
            facts=self.facts,
            credits=self.credits,
            activity=self.activity,
            complaints=self.complaints,
            ids=SequentialIds(),
            clock=self.clock,
        )

    def principal(self, env: Environment = Environment.LIVE) -> Principal:
        return Principal(account=self.account, scope=Scope.FULL_ACCESS, env=env)

    def validate(self, email: str, env: Environment = Environment.LIVE) -> dict[str, object]:
        return self.service.validate(self.principal(env), ValidateRequest(email=email)).model_dump(mode="json")

    def used(self, test: bool = False) -> int:
        return self.credits.used.get((self.account.id, month_key(NOW), test), 0)


def test_a_deliverable_mailbox_has_every_field() -> None:
    h = Harness()
    result = h.validate("Ada@ACME.test")
    assert result == {
        "verification_id": "ver_000000000001",
        "address": "Ada@ACME.test",
        "is_valid": True,
        "result": "valid",
        "status": "valid",
        "sub_status": "",
        "recommendation": "mail",
        "confidence": 0.95,
        "risk": "low",
        "reason": "acme.test's mail server accepted the mailbox (250 OK)",
        "did_you_mean": None,
        "account": "Ada",
        "domain": "acme.test",
        "mx_provider": "google",
        "mx_record": "aspmx.l.google.com",
        "mx_found": True,
        "is_catch_all": False,
        "is_disposable": False,
        "is_role_address": False,
        "is_free_provider": False,
        "smtp_check": True,
        "domain_age_days": 4000,
        # The recipient's history is kept per lower-cased address.
        "activity": Activity(seen=True, total_sends=3, delivered=2, bounced=1).model_dump(mode="json"),
    }
    assert h.prober.probes == [("Ada@acme.test", ("aspmx.l.google.com", "alt1.aspmx.l.google.com"), None)]
    assert h.used() == 1


def test_activity_comes_from_the_recipient_history() -> None:
    activity = Harness().validate("ada@acme.test")["activity"]
    assert activity == {**Activity(seen=True, total_sends=3, delivered=2, bounced=1).model_dump(mode="json")}


def test_without_credits_the_answer_is_402_and_nothing_is_checked() -> None:
    h = Harness()
    limit = PLAN_LIMITS[Plan.FREE].verify_credits
    h.credits.used[h.account.id, month_key(NOW), False] = limit
    with pytest.raises(PaymentRequired) as refused:
        h.validate("ada@acme.test")
    assert refused.value.status == 402 and refused.value.code == "insufficient_credits"
    assert h.routes.asked == [] and h.prober.probes == [] and h.registrations.asked == []
    assert h.used() == limit


def test_a_failed_check_gives_its_credit_back() -> None:
    h = Harness()

    class Broken(StaticRoutes):
        def route(self, domain: str) -> MailRoute:
            raise RuntimeError("resolver exploded")

    h.service._routes = Broken()
    with pytest.raises(RuntimeError):
        h.validate("ada@acme.test")
    assert h.used() == 0


def test_the_101st_call_in_a_minute_is_429_with_retry_after() -> None:
    h = Harness()
    for _ in range(VALIDATE_LIMIT_PER_MINUTE):
        h.validate("bad-address", Environment.TEST)
    with pytest.raises(RateLimited) as refused:
        h.validate("bad-address", Environment.TEST)
    assert refused.value.retry_after == 50  # the window began at 03:00:00; it is 03:00:10
    assert h.used(test=True) == VALIDATE_LIMIT_PER_MINUTE  # the refused call spent nothing
    h.clock.advance(50)
    assert h.validate("bad-address", Environment.TEST)["status"] == "invalid"


def test_test_keys_draw_from_the_test_allowance_and_touch_no_network() -> None:
    h = Harness()
    result = h.validate("invalid@simulator.postline.dev", Environment.TEST)
    assert (result["status"], result["sub_status"], result["smtp_check"]) == ("invalid", "mailbox_not_found", False)
    assert h.validate("someone@acme.test", Environment.TEST)["status"] == "valid"  # default weights
    assert h.routes.asked == [] and h.prober.probes == [] and h.registrations.asked == []
    assert (h.used(test=True), h.used()) == (2, 0)
    h.credits.used[h.account.id, month_key(NOW), True] = PLAN_LIMITS[Plan.FREE].test_allowance
    with pytest.raises(RateLimited) as refused:
        h.validate("someone@acme.test", Environment.TEST)
    assert refused.value.code == "rate_limit_exceeded" and refused.value.retry_after


def test_catch_all_is_cached_per_domain() -> None:
    h = Harness()
    first = h.validate("ada@catchall.test")
    assert (first["status"], first["is_catch_all"], first["smtp_check"]) == ("catch_all", True, True)
    assert h.facts.catch_alls == {"catchall.test": True}
    second = h.validate("bob@catchall.test")
    assert second["status"] == "catch_all" and "cached for a day" in str(second["reason"])
    assert len(h.prober.probes) == 1  # the second address cost no SMTP dialogue


def test_a_domain_known_not_to_be_catch_all_is_probed_for_the_address_only() -> None:
    h = Harness()
    h.validate("ada@acme.test")
    h.validate("bob@acme.test")
    assert [known for _, _, known in h.prober.probes] == [None, False]


def test_no_mx_probes_the_domain_itself() -> None:
    h = Harness()
    h.validate("ada@bare.test")
    assert h.prober.probes[0][1] == ("bare.test",)


def test_undeliverable_domains_and_disposable_are_not_probed() -> None:
    h = Harness()
    assert h.validate("ada@nomail.test")["sub_status"] == "null_mx"
    disposable = h.validate("ada@mailinator.com")
    assert (disposable["status"], disposable["is_disposable"]) == ("do_not_mail", True)
    assert h.prober.probes == []


def test_domain_age_is_cached_and_null_with_a_reason_when_the_registry_is_unreachable() -> None:
    h = Harness()
    h.validate("ada@acme.test")
    h.validate("bob@acme.test")
    assert h.registrations.asked == ["acme.test"]
    unknown = h.validate("ada@catchall.test")
    assert unknown["domain_age_days"] is None
    assert "domain age unknown: the RDAP registry could not be reached" in str(unknown["reason"])
    again = h.validate("bob@catchall.test")  # the failure is kept for an hour: not asked again
    assert again["domain_age_days"] is None and h.registrations.asked == ["acme.test", "catchall.test"]
    assert str(again["reason"]).endswith("domain age unknown: the RDAP registry could not be reached (test)")
    h.clock.advance(61 * 60)
    h.validate("ada@catchall.test")
    assert h.registrations.asked == ["acme.test", "catchall.test", "catchall.test"]


def test_a_typo_gets_a_suggestion_for_the_whole_address() -> None:
    result = Harness().validate("ada@gmial.com")
    assert result["did_you_mean"] == "ada@gmail.com"


def test_syntax_errors_are_invalid_and_ask_nothing() -> None:
    h = Harness()
    result = h.validate("ada@@acme.test")
    assert (result["status"], result["sub_status"], result["mx_found"]) == ("invalid", "failed_syntax_check", False)
    assert h.routes.asked == []


def test_a_local_part_over_64_octets_is_invalid_and_asks_nothing() -> None:
    h = Harness()
    result = h.validate("é" * 33 + "@acme.test")  # 33 characters, 66 octets (RFC 5321 4.5.3.1.1: 64)
    assert (result["status"], result["sub_status"], result["mx_found"]) == ("invalid", "failed_syntax_check", False)
    assert "64" in str(result["reason"]) and h.routes.asked == []


def test_verify_before_send_uses_the_same_rules() -> None:
    routes = StaticRoutes(ROUTES)
    verified = Verifier(routes).verify(["ada@acme.test", "ada@mailinator.com", "ada@nomail.test", "x@@y"])
    assert {a: v.result.value for a, v in verified.items()} == {
        "ada@acme.test": "valid",
        "ada@mailinator.com": "do_not_mail",
        "ada@nomail.test": "invalid",
        "x@@y": "invalid",
    }


def test_the_activity_recorder_aggregates_live_recipient_events_per_recipient() -> None:
    from postline.events.domain import Event, EventType
    from postline.verification.activity import ActivityChunk, ActivityRecorder, Recipient, Seen
    from tests.fakes.shared import RecordingMeter

    class Counters:
        def __init__(self) -> None:
            self.chunks: list[ActivityChunk] = []

        def watermarks(self, partitions: list[str]) -> dict[str, str]:
            return {"EVT#old": "9".zfill(40)}

        def seen(self, recipients: list[Recipient]) -> dict[Recipient, Seen]:
            return {}

        def apply(self, chunk: ActivityChunk, seen: dict[Recipient, Seen]) -> int:
            self.chunks.append(chunk)
            return sum(len(events) for events in chunk.events.values())

    def make(n: int, recipient: str | None, *, kind: EventType = EventType.SENT, test: bool = False) -> Event:
        return Event(
            id=f"e{n}",
            account_id="acc",
            type=kind,
            message_id="msg",
            recipient=recipient,
            timestamp=NOW + timedelta(seconds=n),
            data={"test": True} if test else {},
            created_at=NOW,
            expires_at=0,
        )

    class Stream:
        def positioned_events(self, records: list[dict[str, object]]) -> list[tuple[str, str, Event]]:
            return [
                ("EVT#old", "9", make(0, "seen@x.test")),  # at the partition's watermark: counted before
                ("EVT#a", "10", make(1, "Ann@X.test")),
                ("EVT#a", "11", make(2, "ann@x.test", kind=EventType.DELIVERED)),
                ("EVT#a", "12", make(3, None)),  # no recipient
                ("EVT#a", "13", make(4, "ann@x.test", test=True)),  # a test key's
                *[("EVT#b", f"{20 + n}", make(10 + n, f"r{n}@x.test")) for n in range(120)],
            ]

    counters, meter = Counters(), RecordingMeter()
    recorder = ActivityRecorder(stream=Stream(), counters=counters, clock=FixedClock(NOW), meter=meter)
    assert recorder.record_records([]) == 122
    assert [chunk.actions for chunk in counters.chunks] == [100, 21]  # 121 recipients, one write each
    ann = counters.chunks[0].tally(("acc", "ann@x.test"))
    assert (ann.counts, ann.first_seen, ann.last_seen) == (
        {"events": 2, "total_sends": 1, "delivered": 1},
        NOW + timedelta(seconds=1),
        NOW + timedelta(seconds=2),
    )
    # each event with the stream record it came from: the item's marks skip it when it comes again
    assert [(p, seq) for p, seq, _ in counters.chunks[0].events[("acc", "ann@x.test")]] == [
        ("EVT#a", "10".zfill(40)),
        ("EVT#a", "11".zfill(40)),
    ]
    assert [(p, seq) for p, seq, _ in counters.chunks[1].events[("acc", "r99@x.test")]] == [("EVT#b", "119".zfill(40))]
    assert meter.counts == {("RecipientActivityCounted", frozenset()): 122}


def test_cached_routes_ask_dns_once_per_domain_and_forget_failures() -> None:
    from postline.verification.service import CachedRoutes

    now = [0.0]
    flaky = {"flaky.test": MailRoute(lookup_error="timeout")}
    routes = StaticRoutes({**ROUTES, **flaky})
    cached = CachedRoutes(routes, ttl_seconds=300, monotonic=lambda: now[0])
    for _ in range(3):
        cached.route("acme.test")
        cached.route("flaky.test")
    assert routes.asked == ["acme.test", "flaky.test", "flaky.test", "flaky.test"]
    now[0] = 301
    cached.route("acme.test")
    assert routes.asked[-1] == "acme.test" and routes.asked.count("acme.test") == 2


def test_cached_routes_ask_once_when_chunks_ask_about_a_domain_at_the_same_time() -> None:
    import threading

    from postline.verification.service import CachedRoutes

    gate = threading.Event()

    class SlowRoutes(StaticRoutes):
        def route(self, domain: str) -> MailRoute:
            gate.wait(5)  # DNS answers only once every thread has asked
            return super().route(domain)

    routes = SlowRoutes(ROUTES)
    cached = CachedRoutes(routes)
    answers: list[MailRoute] = []
    threads = [threading.Thread(target=lambda: answers.append(cached.route("acme.test"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(5)
    assert routes.asked == ["acme.test"] and len(answers) == 4 and len({id(a) for a in answers}) == 1


def test_bulk_chunks_group_a_domain_s_addresses_and_keep_each_index() -> None:
    from postline.verification.bulk import CHUNK_SIZE, chunked_by_domain

    addresses = [f"u{n}@d{n % 3}.test" for n in range(2 * CHUNK_SIZE + 10)]
    chunks = chunked_by_domain(addresses)
    assert [len(chunk) for chunk in chunks] == [CHUNK_SIZE, CHUNK_SIZE, 10]
    flat = [pair for chunk in chunks for pair in chunk]
    assert sorted(flat) == list(enumerate(addresses))  # every address once, with its index
    domains = [address.rpartition("@")[2] for _, address in flat]
    assert domains == sorted(domains)  # d0's, then d1's, then d2's: each domain in at most two chunks
    assert [index for index, _ in flat[:3]] == [0, 3, 6]  # the list's order within a domain


def test_an_address_on_the_account_s_complaints_list_is_abuse_without_a_probe() -> None:
    h = Harness()
    result = h.validate("Grumpy@ACME.test")
    assert (result["status"], result["sub_status"], result["recommendation"], result["risk"]) == (
        "abuse",
        "known_complainer",
        "suppress",
        "high",
    )
    assert str(result["reason"]).startswith("Grumpy@acme.test marked this account's mail as spam before")
    assert (result["smtp_check"], result["domain_age_days"], result["mx_found"]) == (None, 4000, True)
    assert h.prober.probes == [] and h.complaints.reads == 1
    assert h.validate("ada@acme.test")["status"] == "valid"  # others on the domain are checked as before


def test_a_chunk_reads_its_complaints_in_one_batched_read() -> None:
    h = Harness()
    emails = ["grumpy@acme.test", "ada@acme.test", "not an address", "bob@acme.test"]
    known = h.service.known(h.account.id, emails)
    assert known.complained == {"grumpy@acme.test"} and h.complaints.reads == 1
    results = [h.service.check_address(h.account.id, email, NOW, known).status.value for email in emails]
    assert results == ["abuse", "valid", "invalid", "valid"] and h.complaints.reads == 1
