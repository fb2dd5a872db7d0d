"""The messages table (two items per message) and the events written with it.

    MSG#<id>  MSG   the message: what queries need, the delivery lease; every state change
                    rewrites it, so it is kept small; sched_pk/sched_sk while it waits for its
                    send_at (the `scheduled` index, soonest first per account: sched_sk is the
                    UTC send_at, fixed width, then the id)
    MSG#<id>  BODY  its sealed content (`sealed`, the vault's record: Binary attributes of
                    compressed content since layout 2, base64 Strings before; vault.py), written
                    once with the message (the same BatchWriteItem, before it: see `create`), read
                    by the dispatcher after it takes the lease, expiring with the message (`expires_at`)

A message stored before 2026-11-28 holds `sealed` in its own item and has no BODY item: every
reader takes the message item's `sealed` when it is there (`claim`; content_checks, retention and
data_removals read both items).

Events (with their tag items) go to the events table (see events.py) in the same transaction as
the state change they record, guarded by the lease and the attempt number, so a repeated step
writes nothing.
"""

from __future__ import annotations

import hashlib
import time
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.events.domain import Event
from postline.events.store import ShardDirectory, event_items
from postline.sending.domain import Message, RecipientState, Schedule, StoredMessage
from postline.sending.ports import Sealed
from postline.shared.dynamo import (
    batch_get,
    batch_write,
    cancellation_codes,
    from_attrs,
    key,
    query_page,
    to_attrs,
    to_value,
    transient,
)
from postline.shared.times import utc

MESSAGE_SK = "MSG"
BODY_SK = "BODY"  # the message's sealed content, beside it (content_checks has its own copy)
SCHEDULED_INDEX = "scheduled"
# What the scheduled list shows, projected into the index (the sealed content is not).
SCHEDULED_ATTRIBUTES = ("id", "account_id", "key_id", "test", "from", "to", "subject", "tags", "send_at", "created_at")
_MAX_TRANSACTION_ITEMS = 100
_RECORD_PAUSES = (0.2, 0.5, 1.0, 2.0)  # seconds between tries of a hand-over's record


def message_key(message_id: str) -> dict[str, Any]:
    return key(f"MSG#{message_id}", MESSAGE_SK)


def body_key(message_id: str) -> dict[str, Any]:
    return key(f"MSG#{message_id}", BODY_SK)


def _scheduled_pk(account_id: str) -> str:
    return f"SCHED#{account_id}"


def scheduled_sort_key(send_at: datetime, message_id: str) -> str:
    """The scheduled index's sort key: the instant in UTC to the microsecond, so the text sorts as the
    time does, whatever offset send_at came with. A key written before (send_at's isoformat) sorts
    right among these when its send_at was given in UTC; one given with another offset keeps its
    wrong place until it goes out or is cancelled (send_at is at most 30 days ahead)."""
    return f"{utc(send_at):%Y-%m-%dT%H:%M:%S.%f}Z#{message_id}"


def _message_item(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = message.model_dump(mode="json", by_alias=True)
    if message.schedule is Schedule.SCHEDULED and message.send_at is not None:
        data["sched_pk"] = _scheduled_pk(message.account_id)
        data["sched_sk"] = scheduled_sort_key(message.send_at, message.id)
    return {**message_key(message.id), **to_attrs(data)}


def _body_item(message: Message, sealed: Sealed) -> dict[str, Any]:
    data: dict[str, Any] = {"sealed": sealed}
    if message.expires_at is not None:
        data["expires_at"] = message.expires_at  # the table's TTL: gone with its message
    return {**body_key(message.id), **to_attrs(data)}


def _message(attrs: dict[str, Any]) -> Message:
    return Message.model_validate(from_attrs(attrs))


class DynamoMessageStore:
    def __init__(self, client: Any, messages_table: str, events_table: str) -> None:
        self._db = client
        self._table = messages_table
        self._events = events_table
        self._shards = ShardDirectory(client, events_table)  # which shard of its day an event goes to

    def create(self, messages: list[Message], sealed: list[Sealed], events: list[Event]) -> None:
        # Unconditional puts of new ids and deterministic event keys: repeating them is harmless.
        # Each body goes just before its message: in the same BatchWriteItem, or (at a call's 25th
        # item) in the one before, as batch_write writes its calls in order. So a message item is
        # never written without its body, but when DynamoDB leaves the body unprocessed and the
        # function dies before batch_write retries it (milliseconds); the dispatcher then finds no
        # content and fails the job until its last receive, as for erased content (delivery/service.py).
        requests = []
        for message, record in zip(messages, sealed, strict=True):
            requests += [(self._table, _body_item(message, record)), (self._table, _message_item(message))]
        requests += [(self._events, item) for event in events for item in self._event_items(event)]
        batch_write(self._db, requests)

    def _event_items(self, event: Event) -> list[dict[str, Any]]:
        return event_items(event, self._shards.count_at(event.account_id, event.timestamp))

    def get(self, message_id: str) -> Message | None:
        item = self._db.get_item(TableName=self._table, Key=message_key(message_id), ConsistentRead=True).get("Item")
        return _message(item) if item else None

    def stored(self, message_ids: list[str]) -> dict[str, StoredMessage]:
        keys = [message_key(message_id) for message_id in dict.fromkeys(message_ids)]
        found = {}
        for attrs in batch_get(self._db, self._table, keys, projection="id, created_at, recipients"):
            item = from_attrs(attrs)
            found[item["id"]] = StoredMessage(
                created_at=datetime.fromisoformat(item["created_at"]),
                recipients={r: RecipientState(state) for r, state in item.get("recipients", {}).items()},
            )
        return found

    def get_many(self, message_ids: list[str]) -> dict[str, Message]:
        keys = [message_key(message_id) for message_id in dict.fromkeys(message_ids)]
        return {message.id: message for message in map(_message, batch_get(self._db, self._table, keys))}

    def list_scheduled(self, account_id: str, *, page: int, per_page: int) -> tuple[list[Message], int]:
        condition = {
            "IndexName": SCHEDULED_INDEX,
            "KeyConditionExpression": "sched_pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": _scheduled_pk(account_id)}},
        }
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=True)
        return [_message(attrs) for attrs in found], total

    def cancel(self, message: Message, events: list[Event], now: datetime) -> bool:
        update = {
            "Update": {
                "TableName": self._table,
                "Key": message_key(message.id),
                "UpdateExpression": "SET #schedule = :cancelled, #status = :status, recipients = :recipients "
                "REMOVE sched_pk, sched_sk",
                "ConditionExpression": "#schedule = :scheduled AND attribute_not_exists(lease_owner)",
                "ExpressionAttributeNames": {"#schedule": "schedule", "#status": "status"},
                "ExpressionAttributeValues": {
                    ":cancelled": {"S": Schedule.CANCELLED.value},
                    ":scheduled": {"S": Schedule.SCHEDULED.value},
                    ":status": {"S": message.status.value},
                    ":recipients": to_value({r: s.value for r, s in message.recipients.items()}),
                },
            }
        }
        return self._transact([update], events)

    def claim(self, message_id: str, owner: str, now: datetime, lease_seconds: int) -> tuple[Message, Sealed] | None:
        try:
            response = self._db.update_item(
                TableName=self._table,
                Key=message_key(message_id),
                UpdateExpression="SET lease_owner = :owner, lease_until = :until REMOVE sched_pk, sched_sk",
                ConditionExpression="attribute_exists(pk) AND "
                "(attribute_not_exists(lease_until) OR lease_until < :now)",
                ExpressionAttributeValues={
                    ":owner": {"S": owner},
                    ":until": {"N": str(int((now + timedelta(seconds=lease_seconds)).timestamp()))},
                    ":now": {"N": str(int(now.timestamp()))},
                },
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return None
            raise
        attrs = response["Attributes"]
        if "sealed" in attrs:  # a message stored before its body had an item of its own
            return _message(attrs), from_attrs(attrs)["sealed"]
        return _message(attrs), self._body(message_id)

    def _body(self, message_id: str) -> Sealed:
        """The message's sealed content; {} when it has none (which the vault refuses to open)."""
        item = self._db.get_item(TableName=self._table, Key=body_key(message_id), ConsistentRead=True).get("Item")
        sealed: Sealed = from_attrs(item).get("sealed", {}) if item else {}
        return sealed

    def release(self, message: Message, owner: str) -> None:
        try:
            self._db.update_item(
                TableName=self._table,
                Key=message_key(message.id),
                UpdateExpression="REMOVE lease_owner, lease_until",
                ConditionExpression="lease_owner = :owner",
                ExpressionAttributeValues={":owner": {"S": owner}},
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise  # not ours any more: it expired and another worker took it

    def record(
        self, message: Message, recipient: str, attempt: int, owner: str, events: list[Event], *, release: bool = False
    ) -> bool:
        update = self._recipient_update(
            message,
            recipient,
            condition="lease_owner = :owner AND (attribute_not_exists(attempts.#r) OR attempts.#r < :attempt)",
            sets="attempts.#r = :attempt",
            values={":attempt": {"N": str(attempt)}, ":owner": {"S": owner}},
            removes="lease_owner, lease_until" if release else None,
        )
        # The write that records a hand-over: an error AWS still answers after botocore's retries would
        # fail the job, and its redelivery would mail the recipient again. So it is tried for longer,
        # with a token that makes a repeat of a transaction that did commit a no-op (10 minutes).
        token = hashlib.sha256(f"{message.id}\x1f{recipient}\x1f{attempt}".encode()).hexdigest()[:36]
        for pause in (*_RECORD_PAUSES, None):
            try:
                return self._transact([update], events, token=token)
            except ClientError as error:
                if pause is None or not transient(error):
                    raise
                time.sleep(pause)
        raise AssertionError("unreachable: the last try raises or returns")

    def mark_engagement(self, message_id: str, field: str, at: datetime) -> None:
        try:
            self._db.update_item(
                TableName=self._table,
                Key=message_key(message_id),
                UpdateExpression="SET #f = :at",
                ConditionExpression="attribute_exists(pk) AND attribute_not_exists(#f)",
                ExpressionAttributeNames={"#f": field},
                ExpressionAttributeValues={":at": {"S": at.isoformat()}},
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def _transact(self, updates: list[dict[str, Any]], events: list[Event], *, token: str | None = None) -> bool:
        """The state change with its events, all or nothing; False when the condition failed.

        Events past what one transaction holds follow it in batches: their keys are
        deterministic, so a crash in between is mended by the repeat of the step.
        """
        room = _MAX_TRANSACTION_ITEMS - len(updates)
        items = [item for event in events for item in self._event_items(event)]
        puts = [{"Put": {"TableName": self._events, "Item": item}} for item in items[:room]]
        try:
            self._db.transact_write_items(
                TransactItems=updates + puts, **({"ClientRequestToken": token} if token else {})
            )
        except ClientError as error:
            if "ConditionalCheckFailed" in cancellation_codes(error)[: len(updates)]:
                return False
            raise
        batch_write(self._db, [(self._events, item) for item in items[room:]])
        return True

    def advance(self, message: Message, recipient: str, expected: set[RecipientState], events: list[Event]) -> bool:
        """A state change reported after the hand-over (SES feedback): applied with its events only
        while the recipient is still in one of the `expected` states, so a repeated report is a no-op."""
        allowed = {f":from{index}": {"S": state.value} for index, state in enumerate(sorted(expected))}
        update = self._recipient_update(
            message, recipient, condition=f"recipients.#r IN ({', '.join(allowed)})", values=allowed
        )
        return self._transact([update], events)

    def _recipient_update(
        self,
        message: Message,
        recipient: str,
        *,
        condition: str,
        values: dict[str, Any],
        sets: str | None = None,
        removes: str | None = None,
    ) -> dict[str, Any]:
        """One recipient's state (from `message`), the message status and delivered_at, if `condition`."""
        values = {
            **values,
            ":state": {"S": message.recipients[recipient].value},
            ":status": {"S": message.status.value},
        }
        expression = "recipients.#r = :state, #status = :status" + (f", {sets}" if sets else "")
        if message.delivered_at is not None:
            expression += ", delivered_at = if_not_exists(delivered_at, :delivered)"
            values[":delivered"] = {"S": message.delivered_at.isoformat()}
        if message.content_check is not None:  # a test-mode message's check, with its first record
            expression += ", content_check = :check"
            values[":check"] = to_value(message.content_check)
        return {
            "Update": {
                "TableName": self._table,
                "Key": message_key(message.id),
                "UpdateExpression": f"SET {expression}" + (f" REMOVE {removes}" if removes else ""),
                "ConditionExpression": condition,
                "ExpressionAttributeNames": {"#r": recipient, "#status": "status"},
                "ExpressionAttributeValues": values,
            }
        }
