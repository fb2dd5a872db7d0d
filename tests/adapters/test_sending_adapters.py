"""The sending adapters against moto: the vault, the dispatch queue, quotas, suppressions and the
scheduled sends' index."""

from __future__ import annotations

import base64
import os
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from postline.accounts.domain import Account, Plan, QuotaSource
from postline.config import ContentBucket, ContentKey
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import Attachment, Content, Message, Schedule
from postline.sending.queue import SqsDispatchQueue
from postline.sending.store import _message_item
from postline.sending.vault import INLINE_LIMIT, KEK_MAX_AGE_SECONDS, KmsVault
from postline.shared.delayed_queue import DelayedQueue
from postline.suppressions.domain import SuppressionType
from postline.usage.pool import PooledQuotas
from postline.usage.quota import EmailLimits, email_limits
from postline.wiring import client, sending, settings, suppressions, usage
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


class FixedClock:
    def now(self) -> datetime:
        return NOW


def test_content_is_sealed_per_message_and_opens_only_for_its_message(stack: InProcessStack) -> None:
    vault = sending.vault()
    first, second = Content(html="<p>one</p>", vars={"n": 1}), Content(text="two")
    sealed = vault.seal([("msg_1", first), ("msg_2", second)])
    assert sealed[0]["kek"] == sealed[1]["kek"]  # one KMS call for the request
    assert sealed[0]["dek"] != sealed[1]["dek"]  # a data key per message
    assert "one" not in str(sealed[0])
    assert vault.open("msg_1", sealed[0]) == first
    with pytest.raises(Exception):  # noqa: B017, PT011 - AES-GCM refuses content moved to another message
        vault.open("msg_2", sealed[0])


class CountingKms:
    """The emulator's KMS, counting the data keys it was asked for."""

    def __init__(self) -> None:
        self._kms = client("kms")
        self.generated = 0

    def generate_data_key(self, **params: Any) -> Any:
        self.generated += 1
        return self._kms.generate_data_key(**params)

    def decrypt(self, **params: Any) -> Any:
        return self._kms.decrypt(**params)


def test_an_instance_seals_with_one_kms_data_key_for_five_minutes_or_its_message_bound(stack: InProcessStack) -> None:
    kms, clock = CountingKms(), [1000.0]
    key_id, bucket = settings(ContentKey).key_id, settings(ContentBucket).bucket
    vault = KmsVault(kms, client("s3"), key_id, bucket, clock=lambda: clock[0], kek_max_messages=4)
    first = vault.seal([("msg_a", Content(text="a"))])[0]
    clock[0] += KEK_MAX_AGE_SECONDS - 1
    second = vault.seal([("msg_b", Content(text="b"))])[0]
    assert kms.generated == 1 and first["kek"] == second["kek"] and first["dek"] != second["dek"]
    clock[0] += 1
    third = vault.seal([("msg_c", Content(text="c"))])[0]
    assert kms.generated == 2 and third["kek"] != second["kek"]  # five minutes old: a new one
    vault.seal([("msg_d", Content(text="d"))] * 3)  # uses its KEK up (4 messages), and no further
    assert kms.generated == 2
    vault.seal([("msg_e", Content(text="e"))])
    assert kms.generated == 3
    # Each opens as the dispatcher opens it (its own vault, the KEK from KMS), and only for its message.
    reader = sending.vault()
    assert [reader.open(m, sealed) for m, sealed in (("msg_a", first), ("msg_b", second))] == [
        Content(text="a"),
        Content(text="b"),
    ]
    with pytest.raises(Exception):  # noqa: B017, PT011 - AES-GCM refuses content moved to another message
        reader.open("msg_b", first)


def test_large_content_goes_to_s3_as_ciphertext(stack: InProcessStack) -> None:
    # Random bytes: INLINE_LIMIT bounds what is stored, after compression (zeros would shrink to little).
    blob = base64.b64encode(os.urandom(INLINE_LIMIT * 2)).decode()
    content = Content(text="big", attachments=[Attachment(filename="zeros.bin", content=blob)])
    (sealed,) = sending.vault().seal([("msg_big", content)])
    assert "body" not in sealed and sealed["s3"] == "content/msg_big"
    stored = stack.client("s3").get_object(Bucket=stack.env["CONTENT_BUCKET"], Key="content/msg_big")["Body"].read()
    assert b"zeros.bin" not in stored
    assert sending.vault().open("msg_big", sealed) == content


def test_erasing_the_data_key_makes_the_content_unreadable(stack: InProcessStack) -> None:
    (sealed,) = sending.vault().seal([("msg_erased", Content(text="personal"))])
    erased = {name: value for name, value in sealed.items() if name != "dek"}
    with pytest.raises(LookupError):
        sending.vault().open("msg_erased", erased)


def _queue(stack: InProcessStack, max_delay: int = 900) -> SqsDispatchQueue:
    return SqsDispatchQueue(
        DelayedQueue(
            stack.client("sqs"),
            stack.client("scheduler"),
            queue_url=stack.env["SEND_QUEUE_URL"],
            queue_arn=stack.env["SEND_QUEUE_ARN"],
            scheduler_role_arn=stack.env["SCHEDULER_ROLE_ARN"],
            clock=FixedClock(),
            max_delay_seconds=max_delay,
        )
    )


def test_a_near_send_at_is_a_queue_delay_and_a_far_one_a_schedule(stack: InProcessStack) -> None:
    sqs, scheduler = stack.client("sqs"), stack.client("scheduler")
    url = stack.env["SEND_QUEUE_URL"]
    queue = _queue(stack)
    near, far = (DispatchJob(message_id=f"msg_{n}", account_id="a") for n in ("near", "far"))
    queue.enqueue([near], not_before=NOW + timedelta(minutes=15))
    queue.enqueue([far], not_before=NOW + timedelta(minutes=16))

    delayed = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesDelayed"])
    assert delayed["Attributes"]["ApproximateNumberOfMessagesDelayed"] == "1"
    schedule = scheduler.get_schedule(Name="send-msg_far", GroupName="default")
    assert schedule["ScheduleExpression"] == "at(2026-11-21T12:16:00)"
    assert schedule["Target"]["Arn"] == stack.env["SEND_QUEUE_ARN"]
    assert DispatchJob.model_validate_json(schedule["Target"]["Input"]) == far

    queue.unschedule("msg_far")
    queue.unschedule("msg_far")  # already gone: not an error
    assert "send-msg_far" not in [s["Name"] for s in scheduler.list_schedules()["Schedules"]]


def test_quota_counts_until_the_limit_and_never_past_it(stack: InProcessStack) -> None:
    counters = usage.counter_store()
    account = f"acct_{uuid.uuid4().hex}"
    limits = EmailLimits(monthly=10, daily=5, test=False)
    assert counters.consume_emails(account, 4, month="2026-11", day="2026-11-21", limits=limits) is None
    assert counters.consume_emails(account, 2, month="2026-11", day="2026-11-21", limits=limits) == "daily"
    assert counters.consume_emails(account, 1, month="2026-11", day="2026-11-21", limits=limits) is None
    no_daily_cap = EmailLimits(monthly=10, daily=None, test=False)
    assert counters.consume_emails(account, 6, month="2026-11", day="2026-11-22", limits=no_daily_cap) == "monthly"
    counters.release_emails(account, 1, month="2026-11", day="2026-11-21", test=False)
    assert counters.usage(account, month="2026-11", day="2026-11-21")["emails"] == 4


def test_a_count_is_one_conditional_write_of_the_months_item(stack: InProcessStack) -> None:
    """The month's and the day's counts live in one item (the day as `d<DD>`): a count is one
    UpdateItem, conditional on both limits, and a refusal names the limit it would have passed."""
    counters = usage.counter_store()
    db, table = client("dynamodb"), counters._table
    account = f"acct_{uuid.uuid4().hex}"
    limits = EmailLimits(monthly=10, daily=5, test=False)
    calls: list[str] = []
    db.meta.events.register("before-call.dynamodb.*", lambda model, **_: calls.append(model.name))
    try:
        assert counters.consume_emails(account, 5, month="2026-11", day="2026-11-21", limits=limits) is None
        assert counters.consume_emails(account, 1, month="2026-11", day="2026-11-21", limits=limits) == "daily"
        assert counters.consume_emails(account, 5, month="2026-11", day="2026-11-22", limits=limits) is None
        assert counters.consume_emails(account, 1, month="2026-11", day="2026-11-23", limits=limits) == "monthly"
        counters.release_emails(account, 2, month="2026-11", day="2026-11-21", test=False)
    finally:
        db.meta.events.unregister("before-call.dynamodb.*")
    assert calls == ["UpdateItem"] * 5
    item = db.get_item(TableName=table, Key={"pk": {"S": f"USAGE#{account}"}, "sk": {"S": "M#2026-11"}})["Item"]
    assert (item["emails"], item["d21"], item["d22"]) == ({"N": "8"}, {"N": "3"}, {"N": "5"})
    assert "d23" not in item
    assert counters.usage(account, month="2026-11", day="2026-11-21")["emails_daily"] == 3


def test_a_days_count_kept_in_its_own_item_before_is_read_with_it(stack: InProcessStack) -> None:
    """Until 2026-11-28 a day's count had an item of its own (`D#<day>`): the day of the change reads
    whole."""
    counters = usage.counter_store()
    account = f"acct_{uuid.uuid4().hex}"
    client("dynamodb").put_item(
        TableName=counters._table,
        Item={"pk": {"S": f"USAGE#{account}"}, "sk": {"S": "D#2026-11-21"}, "emails": {"N": "4"}},
    )
    limits = EmailLimits(monthly=None, daily=None, test=False)
    assert counters.consume_emails(account, 2, month="2026-11", day="2026-11-21", limits=limits) is None
    assert counters.usage(account, month="2026-11", day="2026-11-21")["emails_daily"] == 6


def test_a_charge_is_counted_once_whatever_its_retries_and_given_back_once(stack: InProcessStack) -> None:
    """A list page's quota count names its charge: the page's retry after a crash between the count
    and its messages' store (tests/faults/test_crash_jobs.py) is not counted again."""
    counters = usage.counter_store()
    account = f"acct_{uuid.uuid4().hex}"
    limits = EmailLimits(monthly=10, daily=5, test=False)
    month, day = "2026-11", "2026-11-21"

    def used() -> tuple[int, int]:
        counted = counters.usage(account, month=month, day=day)
        return counted["emails"], counted["emails_daily"]

    assert counters.consume_emails(account, 3, month=month, day=day, limits=limits, charge="lpage_1") is None
    assert counters.consume_emails(account, 3, month=month, day=day, limits=limits, charge="lpage_1") is None
    assert used() == (3, 3)
    # counted already, even where a second count would pass the day's limit
    assert counters.consume_emails(account, 3, month=month, day=day, limits=limits, charge="lpage_1") is None
    assert counters.consume_emails(account, 3, month=month, day=day, limits=limits, charge="lpage_2") == "daily"
    counters.release_emails(account, 3, month=month, day=day, test=False, charge="lpage_1")
    counters.release_emails(account, 3, month=month, day=day, test=False, charge="lpage_1")  # its retry
    assert used() == (0, 0)
    assert counters.consume_emails(account, 2, month=month, day=day, limits=limits, charge="lpage_1") is None
    assert used() == (2, 2)


def test_a_payg_charge_cut_off_after_its_credits_takes_none_again_on_its_retry(stack: InProcessStack) -> None:
    """The plan's allowance spent, a page's credits are taken, then its worker dies before the count
    past the plan's limit: the retry neither takes the credits again nor counts the emails twice."""
    counters = usage.counter_store()
    account = Account(
        id=f"acct_{uuid.uuid4().hex}", plan=Plan.FREE, quota_source=QuotaSource.PAYG_CREDITS, created_at=NOW
    )
    month, day = "2026-11", "2026-11-21"
    counters.grant_credits(account.id, 5)
    limits = email_limits(account, test=False)
    spent = EmailLimits(None, None, test=False)  # the month's allowance (and the day's cap) spent
    assert counters.consume_emails(account.id, limits.monthly or 0, month=month, day=day, limits=spent) is None

    class Dies(Exception):
        pass

    class DiesAfterTheCredits:
        """The counter store, whose first count past the plan's limit dies before it is made."""

        died = False

        def consume_emails(self, *args: Any, **kwargs: Any) -> str | None:
            if kwargs["limits"].monthly is None and not self.died:
                self.died = True
                raise Dies
            return counters.consume_emails(*args, **kwargs)

        def release_emails(self, *args: Any, **kwargs: Any) -> None:
            counters.release_emails(*args, **kwargs)

    quotas = PooledQuotas(DiesAfterTheCredits(), _Lookup(account), credits=counters)
    with pytest.raises(Dies):
        quotas.consume_emails(account.id, 3, month=month, day=day, limits=limits, charge="lpage_1")
    assert quotas.consume_emails(account.id, 3, month=month, day=day, limits=limits, charge="lpage_1") is None
    assert quotas.consume_emails(account.id, 3, month=month, day=day, limits=limits, charge="lpage_1") is None
    assert counters.credits(account.id) == 2
    assert counters.usage(account.id, month=month, day=day)["emails"] == (limits.monthly or 0) + 3


class _Lookup:
    def __init__(self, account: Account) -> None:
        self._account = account

    def get_account(self, account_id: str) -> Account | None:
        return self._account if account_id == self._account.id else None


def test_the_test_allowance_is_counted_apart_from_the_plan_quota(stack: InProcessStack) -> None:
    counters = usage.counter_store()
    account = f"acct_{uuid.uuid4().hex}"
    allowance = EmailLimits(monthly=3, daily=None, test=True)
    assert counters.consume_emails(account, 3, month="2026-11", day="2026-11-21", limits=allowance) is None
    assert counters.consume_emails(account, 1, month="2026-11", day="2026-11-21", limits=allowance) == "monthly"
    assert counters.usage(account, month="2026-11", day="2026-11-21")["emails"] == 0


def test_suppressions_block_unless_allowlisted_and_adding_twice_is_one_entry(stack: InProcessStack) -> None:
    store = suppressions.suppressions()
    account = f"acct_{uuid.uuid4().hex}"
    assert store.add(account, "Bounced@Example.com", SuppressionType.BOUNCES, NOW) is True
    assert store.add(account, "bounced@example.com", SuppressionType.BOUNCES, NOW) is False
    store.add(account, "gone@example.com", SuppressionType.UNSUBSCRIBES, NOW)
    store.add(account, "allowed@example.com", SuppressionType.COMPLAINTS, NOW)
    store.add(account, "allowed@example.com", SuppressionType.ALLOWLIST, NOW)
    addresses = ["BOUNCED@example.com", "gone@example.com", "allowed@example.com", "fine@example.com"]
    assert store.suppressed(account, addresses) == {"bounced@example.com", "gone@example.com"}


def _scheduled(account_id: str, message_id: str, send_at: datetime) -> Message:
    return Message(
        id=message_id,
        account_id=account_id,
        key_id="key_1",
        test=False,
        from_="hello@acme.example",
        to=["ann@example.com"],
        subject=message_id,
        schedule=Schedule.SCHEDULED,
        send_at=send_at,
        created_at=NOW,
    )


def test_scheduled_sends_are_listed_by_instant_whatever_offset_they_came_with(stack: InProcessStack) -> None:
    store, account = sending.message_store(), f"acct_{uuid.uuid4().hex}"
    # As strings "2030-01-02T10:30:00+05:00" sorts after "2030-01-02T06:00:00Z"; as instants it is 05:30Z.
    sooner = _scheduled(account, "msg_sooner", datetime(2030, 1, 2, 10, 30, tzinfo=timezone(timedelta(hours=5))))
    later = _scheduled(account, "msg_later", datetime(2030, 1, 2, 6, 0, tzinfo=UTC))
    store.create([later, sooner], [{}, {}], [])
    # An item scheduled before the fix keeps its key (isoformat of a UTC send_at); it sorts among the new ones.
    legacy = _message_item(_scheduled(account, "msg_legacy", datetime(2030, 1, 2, 5, 45, tzinfo=UTC)))
    legacy["sched_sk"] = {"S": "2030-01-02T05:45:00+00:00#msg_legacy"}
    stack.client("dynamodb").put_item(TableName=stack.env["MESSAGES_TABLE"], Item=legacy)

    found, total = store.list_scheduled(account, page=1, per_page=10)
    assert [message.id for message in found] == ["msg_sooner", "msg_legacy", "msg_later"]
    assert total == 3
    assert found[0].send_at == datetime(2030, 1, 2, 5, 30, tzinfo=UTC)
    assert found[0].send_at is not None and found[0].send_at.utcoffset() == timedelta(0)
