"""The members the fakes took on to implement their ports whole (tests/fakes/__init__.py): they answer
as the adapters' conditions do, so a test that comes to use them gets the store's behaviour."""

from __future__ import annotations

from datetime import timedelta

from postline.audit.domain import Actor, audit_entry
from postline.sending.domain import Message, MessageStatus, RecipientState, Schedule
from postline.webhook_delivery.domain import Delivery, DeliveryStatus
from postline.webhook_delivery.history import HistoryRead, sort_key
from postline.webhooks.domain import WebhookEndpoint
from tests.fakes.sending import InMemoryMessages
from tests.fakes.shared import DEFAULT_START
from tests.fakes.webhook_delivery import InMemoryDeliveries
from tests.fakes.webhooks import NoEndpoints


def _message(message_id: str, *, minutes: int | None, account_id: str = "acct_1") -> Message:
    return Message(
        id=message_id,
        account_id=account_id,
        key_id="key_1",
        test=True,
        from_="ada@postline.test",
        to=["bob@example.com"],
        subject="hi",
        recipients={"bob@example.com": RecipientState.QUEUED},
        schedule=Schedule.NOW if minutes is None else Schedule.SCHEDULED,
        send_at=None if minutes is None else DEFAULT_START + timedelta(minutes=minutes),
        created_at=DEFAULT_START,
    )


def test_scheduled_messages_list_soonest_first_until_claimed_or_cancelled() -> None:
    messages = InMemoryMessages()
    later, sooner, now = _message("msg_b", minutes=30), _message("msg_a", minutes=10), _message("msg_c", minutes=None)
    messages.create([later, sooner, now, _message("msg_x", minutes=5, account_id="acct_2")], [{}] * 4, [])

    listed, total = messages.list_scheduled("acct_1", page=1, per_page=10)
    assert [m.id for m in listed] == ["msg_a", "msg_b"] and total == 2

    assert messages.claim("msg_a", "worker", DEFAULT_START, 60) is not None
    assert not messages.cancel(sooner, [], DEFAULT_START)  # held by a worker
    rejected = {"bob@example.com": RecipientState.REJECTED}
    cancelled = later.model_copy(update={"status": MessageStatus.REJECTED, "recipients": rejected})
    assert messages.cancel(cancelled, [], DEFAULT_START)
    assert not messages.cancel(cancelled, [], DEFAULT_START)  # no longer scheduled

    stored = messages.get("msg_b")
    assert stored is not None and stored.schedule is Schedule.CANCELLED and stored.recipients == rejected
    assert messages.list_scheduled("acct_1", page=1, per_page=10) == ([], 0)


def test_engagement_is_marked_the_first_time_only() -> None:
    messages = InMemoryMessages()
    messages.create([_message("msg_a", minutes=None)], [{}], [])

    messages.mark_engagement("msg_a", "opened_at", DEFAULT_START)
    messages.mark_engagement("msg_a", "opened_at", DEFAULT_START + timedelta(hours=1))
    messages.mark_engagement("msg_gone", "opened_at", DEFAULT_START)

    stored = messages.get("msg_a")
    assert stored is not None and stored.opened_at == DEFAULT_START and stored.clicked_at is None


def _delivery(
    delivery_id: str, *, days: int, endpoint_id: str | None = "wh_1", event_type: str = "delivered"
) -> Delivery:
    return Delivery(
        id=delivery_id,
        account_id="acct_1",
        endpoint_id=endpoint_id,
        url="https://hooks.example.com/postline",
        event_id=f"evt_{delivery_id}",
        event_type=event_type,
        message_id="msg_1",
        body="{}",
        status=DeliveryStatus.SUCCEEDED if event_type == "delivered" else DeliveryStatus.FAILED,
        created_at=DEFAULT_START + timedelta(days=days),
        expires_at=0,
    )


def test_deliveries_read_by_endpoint_newest_first_through_the_month_partitions() -> None:
    deliveries = InMemoryDeliveries()
    # DEFAULT_START is 14 March: day 20 falls in April
    for delivery in (
        _delivery("whd_1", days=0),
        _delivery("whd_2", days=1, event_type="bounced"),
        _delivery("whd_3", days=20),
        _delivery("whd_4", days=2, endpoint_id=None),
    ):
        deliveries.create(delivery)
    assert list(deliveries.for_endpoint("acct_1", "wh_1", ["2025-03"], since=DEFAULT_START, until=DEFAULT_START)) == []
    for delivery in list(deliveries.items.values()):  # in the index from its first recorded attempt on
        assert deliveries.save(delivery, attempts_before=0)
    months = ["2025-04", "2025-03"]
    since, until = DEFAULT_START, DEFAULT_START + timedelta(days=30)

    def read(endpoint_id: str | None, partitions: list[str], *statuses: DeliveryStatus) -> list[str]:
        found = deliveries.for_endpoint("acct_1", endpoint_id, partitions, since=since, until=until, statuses=statuses)
        return [d.id for d in found]

    def history(before: str | None) -> HistoryRead:
        return deliveries.read_history(
            "acct_1",
            "wh_1",
            months,
            since=since,
            until=until,
            before=before,
            statuses=(),
            event_types=(),
            want=2,
            budget_seconds=1.0,
        )

    assert set(deliveries.get_many(["whd_1", "whd_9"])) == {"whd_1"}
    assert read("wh_1", months) == ["whd_3", "whd_2", "whd_1"]
    assert read(None, months) == ["whd_4"]
    assert read("wh_1", ["2025-03"]) == ["whd_2", "whd_1"]
    assert read("wh_1", months, DeliveryStatus.FAILED) == ["whd_2"]

    first = history(None)
    assert [d.id for d in first.deliveries] == ["whd_3", "whd_2"] and first.resume_at is None
    last = first.deliveries[-1]
    assert [d.id for d in history(sort_key(last.created_at, last.id)).deliveries] == ["whd_1"]


def test_an_account_without_endpoints_finds_none_to_record_against() -> None:
    endpoints = NoEndpoints()
    entry = audit_entry(
        entry_id="aud_1", account_id="acct_1", actor=Actor.system(), action="test", target=None, now=DEFAULT_START
    )
    endpoint = WebhookEndpoint.model_construct(
        id="wh_1",
        account_id="acct_1",
        url="https://hooks.example.com/postline",
        created_at=DEFAULT_START,
        updated_at=DEFAULT_START,
    )

    assert endpoints.enabled_endpoints("acct_1") == [] and endpoints.get_endpoint("acct_1", "wh_1") is None
    assert endpoints.record_failure("acct_1", "wh_1", DEFAULT_START) is None
    assert endpoints.auto_disable(endpoint, entry) is False
