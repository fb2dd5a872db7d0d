"""SubmissionService against the fakes: AUTH through the API's authenticator, seats, the rate window,
and a message through the same send service as POST /v3/messages, delivered as submitted."""

from __future__ import annotations

from postline.accounts.domain import AccountStatus, Plan
from postline.auth.service import RouteRule
from postline.keys.access import Access, Environment, Scope
from postline.sending.dispatch_job import DispatchJob
from postline.smtp.service import SubmissionService
from tests.fakes.delivery import ScriptedTransport
from tests.fakes.domains import SENDING_DOMAIN
from tests.fakes.smtp import InMemorySubmissionCounters
from tests.unit.sending.test_metrics import Sending
from tests.unit.world import World

SOURCE = "203.0.113.9"


class Submission:
    def __init__(self, world: World, *, plan: Plan = Plan.FREE) -> None:
        self.world = world
        self.sending = Sending(world)
        self.account = self.sending.account = world.account(plan=plan)
        self.counters = InMemorySubmissionCounters()
        self.service = SubmissionService(
            authenticator=world.auth,
            sender=self.sending.send_service(),
            rule=RouteRule(Access.SEND, False),
            counters=self.counters,
            clock=world.clock,
            auth_failures_per_minute=3,
        )

    def key(self, **options: object) -> str:
        return self.world.key(self.account, **options).key  # type: ignore[arg-type]


def raw(*headers: str) -> bytes:
    lines = [f"From: Acme <hello@{SENDING_DOMAIN}>", "To: to@example.com", "Subject: Hi", *headers]
    return ("\r\n".join(lines) + "\r\n\r\nHello.\r\n").encode()


def test_a_key_logs_in_and_a_wrong_one_is_counted_until_the_source_is_throttled(world: World) -> None:
    submission = Submission(world)
    assert submission.service.login(submission.key(), SOURCE).reply.startswith("235")
    replies = [submission.service.login("pk_live_nope", SOURCE) for _ in range(4)]
    assert [login.reply[:3] for login in replies] == ["535", "535", "535", "421"]
    assert replies[-1].close and replies[-1].principal is None
    assert submission.service.login(submission.key(), "198.51.100.1").principal is not None  # another source
    world.clock.advance(60)
    assert submission.service.login(submission.key(), SOURCE).principal is not None


def test_the_api_refusals_of_a_key_apply_with_their_reason(world: World) -> None:
    submission = Submission(world)
    read_only = submission.key(scope=Scope.READ_ONLY)
    allowlisted = submission.key(ip_allowlist=[{"cidr": "192.0.2.0/24"}])
    assert "read_only" in submission.service.login(read_only, SOURCE).reply
    assert submission.service.login(allowlisted, SOURCE).reply.startswith("535 5.7.8 Requests from 203.0.113.9")
    assert submission.service.login(allowlisted, "192.0.2.7").principal is not None
    key = submission.key()
    world.operator.set_status(submission.account.id, AccountStatus.SUSPENDED)
    assert "suspended" in submission.service.login(key, SOURCE).reply
    assert submission.counters.failures == {}  # real keys refused are not guesses


def test_seats_and_the_rate_follow_the_plan(world: World) -> None:
    for plan, seats, rate in ((Plan.FREE, 5, 10), (Plan.PROFESSIONAL, 20, 100)):
        submission = Submission(world, plan=plan)
        principal = submission.service.login(submission.key(), SOURCE).principal
        assert principal is not None
        assert [submission.service.open(principal, f"c{i}") for i in range(seats)] == [None] * seats
        assert (
            submission.service.open(principal, "extra")
            == f"421 4.7.0 Too many simultaneous connections for this account ({seats}); closing"
        )
        submission.service.close(principal, "c0")
        assert submission.service.open(principal, "extra") is None
        assert [submission.service.start_message(principal) for _ in range(rate)] == [None] * rate
        assert (submission.service.start_message(principal) or "").startswith("452 4.7.0")
        world.clock.advance(1)
        assert submission.service.start_message(principal) is None


def test_a_message_goes_through_the_send_service_and_is_delivered_as_submitted(world: World) -> None:
    submission = Submission(world)
    key = submission.key()
    reply = submission.service.submit(
        key, SOURCE, ["to@example.com", "hidden@example.com"], raw("Bcc: hidden@example.com", "X-Svc-Tag: t")
    )
    assert reply.startswith("250 2.0.0 Ok: queued as msg_")
    message_id = reply.rsplit(" ", 1)[-1]
    stored = submission.sending.messages.get(message_id)
    assert stored is not None and stored.to == ["to@example.com", "hidden@example.com"] and stored.tags == ["t"]
    assert not stored.track_opens and not stored.track_clicks
    transport = ScriptedTransport()
    parcels: list[bytes] = []
    original = transport.deliver
    transport.deliver = lambda batch: (parcels.extend(p.mime for p in batch), original(batch))[1]  # type: ignore[method-assign]
    submission.sending.dispatcher(transport).dispatch(
        DispatchJob(message_id=message_id, account_id=submission.account.id)
    )
    assert sorted(transport.handed) == ["hidden@example.com", "to@example.com"]
    for mime in parcels:
        head = mime.split(b"\r\n\r\n", 1)[0]
        assert head.startswith(f"X-Postline-Message-Id: {message_id}\r\n".encode())
        assert b"Bcc" not in head and b"X-Svc" not in head and b"\r\nDate: " in head and b"\r\nMessage-ID: <" in head
        assert mime.endswith(b"\r\n\r\nHello.\r\n")


def test_refusals_name_the_header_and_keep_the_smtp_class(world: World) -> None:
    submission = Submission(world)
    key = submission.key()
    assert submission.service.submit(key, SOURCE, ["to@example.com"], raw("X-Svc-Webhook: not a url")).startswith(
        "550 5.6.0 X-Svc-Webhook:"
    )
    assert submission.service.submit(key, SOURCE, ["not-an-address"], raw()).startswith("550 5.6.0 RCPT TO:")
    assert submission.service.submit(key, SOURCE, ["to@example.com"], raw("X-Postline-Message-Id: x")).startswith(
        "550 5.6.0 X-* header:"
    )
    world.operator.set_sending_paused(submission.account.id, True)
    assert submission.service.submit(key, SOURCE, ["to@example.com"], raw()).startswith("451 4.3.0 Live sending")
    test_key = submission.key(env=Environment.TEST)
    assert submission.service.submit(test_key, SOURCE, ["to@example.com"], raw()).startswith("250")


def test_an_idempotency_key_replays_the_first_answer(world: World) -> None:
    """(The same key with another message is refused by the real idempotency store: the e2e test.)"""
    submission = Submission(world)
    key = submission.key()
    first = submission.service.submit(key, SOURCE, ["to@example.com"], raw("X-Svc-Idempotency-Key: k1"))
    assert submission.service.submit(key, SOURCE, ["to@example.com"], raw("X-Svc-Idempotency-Key: k1")) == first
    assert len(submission.sending.messages.items) == 1
