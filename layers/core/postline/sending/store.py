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

A state change after the message is stored (the dispatcher's record of a hand-over, a feedback
report's) is one conditional UpdateItem of the message item, then its events' puts to the events
table (events/store.py), with no transaction (which bills each item twice). The update keeps the
step's events, packed (recorded.py), in the message item: `rec` the dispatcher's last record,
`fb` the last feedback report's. So events are never lost to a death between the two writes, nor
written twice with other times:
- the dispatcher's next claim of the message (a redelivered job, a retry's) writes `rec`'s events
  again before it records anything, and a job finding nothing to do does too (`settle`); one
  worker records at a time (the lease), so `rec` is never overwritten before that;
- a record whose condition fails because its own write is there already (botocore or `record`
  trying again a write whose reply was lost: the same owner, recipient and attempt, seen in the
  item the failure returns, ReturnValuesOnConditionCheckFailure) writes the events and succeeds;
- a report that replaces `fb` writes the replaced one's events too (what the update returns of
  it), as reports come without a lease; a report whose change is recorded already, the recipient
  in its state or one a later report moved it to (its own redelivery: its worker may have died
  before the events, and the next report's worker too, before it wrote them), changes nothing and
  writes its events (`restore`): `fb`'s if it still holds them, as first made; else those the
  message's events lack by id (by_message), rebuilt from the report: ids from the message, kind and
  recipient, times SES's, data the report's, so the very items. So any number of workers dying
  loses no report's events, and costs nothing on the way that does not (no byte in the message item,
  which a bounded `fb` of several reports would cost every write); a restore reads the message
  item (1 read unit), queries its events (0.5 a 4 KB page) and writes only what is missing. An id
  found by the index is not written again: SES repeats a delay (and a complaint may come twice)
  with another time, and an event's key holds its time. Left: a restore racing a live worker that
  writes the same event with another time (a replaced `fb`'s) within the index's lag (~a second).
Every rewrite puts the very items written first: DynamoDB writes no stream record for a put that
changes nothing, and the stream's consumers take INSERTs only, so no webhook or count repeats.
Only a cancellation (rare, before any hand-over) is still a transaction.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError
from pydantic import ValidationError

from postline.events.domain import Event
from postline.events.store import BY_MESSAGE_INDEX, ShardDirectory, event_items
from postline.sending.domain import Message, RecipientState, Schedule, StoredMessage
from postline.sending.ports import Sealed
from postline.sending.recorded import event_ids, pack, unpack
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

logger = logging.getLogger(__name__)

MESSAGE_SK = "MSG"
BODY_SK = "BODY"  # the message's sealed content, beside it (content_checks has its own copy)
SCHEDULED_INDEX = "scheduled"
# What the scheduled list shows, projected into the index (the sealed content is not).
SCHEDULED_ATTRIBUTES = ("id", "account_id", "key_id", "test", "from", "to", "subject", "tags", "send_at", "created_at")
_MAX_TRANSACTION_ITEMS = 100
_RECORD_PAUSES = (0.2, 0.5, 1.0, 2.0)  # seconds between tries of a hand-over's record
RECORD_SLOT = "rec"  # the dispatcher's last record's events, packed (recorded.py)
FEEDBACK_SLOT = "fb"  # the last feedback report's


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


def inserted_messages(records: Iterable[Mapping[str, Any]]) -> list[Message]:
    """The messages a batch of the table's stream records inserted (their NEW_IMAGE), in order; the
    other records (a body's item, an update, a TTL deletion) are not messages stored. An image that
    is not a message this code can read is logged and left out: raising would hold every later
    record of its shard back (the stream retries a failed batch until the record expires), and
    the dispatcher could not deliver it either."""
    messages = []
    for record in records:
        if record.get("eventName") != "INSERT" or record["dynamodb"]["Keys"]["sk"]["S"] != MESSAGE_SK:
            continue
        try:
            messages.append(_message(record["dynamodb"]["NewImage"]))
        except ValidationError:
            logger.exception(
                "a stored message's stream record does not read as a message: %s", record["dynamodb"]["Keys"]
            )
    return messages


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
        message = _message(attrs)
        # The last record's events, again (idempotent): its writer may have died before them, and the
        # records this worker makes now replace the slot.
        self._write_events(self._slot_events(message, attrs, RECORD_SLOT))
        if "sealed" in attrs:  # a message stored before its body had an item of its own
            return message, from_attrs(attrs)["sealed"]
        return message, self._body(message_id)

    def settle(self, message_id: str) -> None:
        """Writes again the events of the message's last record (a job that finds nothing left to do:
        the job before it may have died between the record and its events)."""
        item = self._db.get_item(TableName=self._table, Key=message_key(message_id), ConsistentRead=True).get("Item")
        if item and RECORD_SLOT in item:
            self._write_events(self._slot_events(_message(item), item, RECORD_SLOT))

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
        mine = hashlib.sha256(owner.encode()).hexdigest()[:10]  # which claim wrote it
        update = self._recipient_update(
            message,
            recipient,
            condition="lease_owner = :owner AND (attribute_not_exists(attempts.#r) OR attempts.#r < :attempt)",
            sets="attempts.#r = :attempt",
            values={":attempt": {"N": str(attempt)}, ":owner": {"S": owner}},
            removes="lease_owner, lease_until" if release else None,
            slot=(RECORD_SLOT, {"w": mine, **pack(message, recipient, events, step=attempt)}),
        )

        def own(found: dict[str, Any]) -> bool:  # this very write, made before (its reply lost)
            return found.get("w") == mine and found.get("r") == recipient and found.get("s") == attempt

        # The write that records a hand-over: an error AWS still answers after botocore's retries would
        # fail the job, and its redelivery would mail the recipient again. So it is tried for longer; a
        # try after one that did write finds its own record (`own`) and writes the events again.
        for pause in (*_RECORD_PAUSES, None):
            try:
                return self._change(update, message, events, RECORD_SLOT, own=own, own_result=True)
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

    def _transact(self, updates: list[dict[str, Any]], events: list[Event]) -> bool:
        """A cancellation with its events, all or nothing; False when the condition failed.

        Events past what one transaction holds follow it in batches: their keys are
        deterministic, so a crash in between is mended by the repeat of the step.
        """
        room = _MAX_TRANSACTION_ITEMS - len(updates)
        items = [item for event in events for item in self._event_items(event)]
        puts = [{"Put": {"TableName": self._events, "Item": item}} for item in items[:room]]
        try:
            self._db.transact_write_items(TransactItems=updates + puts)
        except ClientError as error:
            if "ConditionalCheckFailed" in cancellation_codes(error)[: len(updates)]:
                return False
            raise
        batch_write(self._db, [(self._events, item) for item in items[room:]])
        return True

    def _change(
        self,
        update: dict[str, Any],
        message: Message,
        events: list[Event],
        slot: str,
        *,
        own: Callable[[dict[str, Any]], bool],
        own_result: bool,
        replaces: bool = False,
    ) -> bool:
        """The conditional update, then its events; False when the condition failed on someone else's
        change. When it failed on this change recorded already (`own`, from the item the failure
        returns, its slot unpacked), the recorded events are written again and `own_result` returned.
        `replaces`: the events of the slot the update replaces are written again too."""
        request = {**update["Update"], "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
        if replaces:
            request["ReturnValues"] = "UPDATED_OLD"
        try:
            response = self._db.update_item(**request)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            item = error.response.get("Item") or {}
            if slot not in item or not own(from_attrs({slot: item[slot]})[slot]):
                return False
            self._write_events(self._slot_events(_message(item), item, slot))
            return own_result
        earlier = self._slot_events(message, response.get("Attributes") or {}, slot) if replaces else []
        self._write_events(earlier + events)
        return True

    def _slot_events(self, message: Message, attrs: dict[str, Any], slot: str) -> list[Event]:
        """The events packed in an item's `slot` (none when it has none)."""
        return unpack(message, from_attrs({slot: attrs[slot]})[slot]) if slot in attrs else []

    def _write_events(self, events: list[Event]) -> None:
        items: dict[tuple[str, str], dict[str, Any]] = {}
        for event in events:  # an event twice (a replaced slot's and this change's): written once
            for item in self._event_items(event):
                items[(item["pk"]["S"], item["sk"]["S"])] = item
        batch_write(self._db, [(self._events, item) for item in items.values()])

    def advance(
        self, message: Message, recipient: str, expected: set[RecipientState], events: list[Event], *, step: int | str
    ) -> bool:
        """A state change reported after the hand-over (SES feedback): applied with its events only
        while the recipient is still in one of the `expected` states, so a repeated report is a no-op.
        `step`: what the events' ids were made with (events.domain.event_id)."""
        allowed = {f":from{index}": {"S": state.value} for index, state in enumerate(sorted(expected))}
        update = self._recipient_update(
            message,
            recipient,
            condition=f"recipients.#r IN ({', '.join(allowed)})",
            values=allowed,
            slot=(FEEDBACK_SLOT, pack(message, recipient, events, step=step)),
        )
        ids = [event.id for event in events]

        def own(found: dict[str, Any]) -> bool:  # this report's change, recorded by an earlier delivery of it
            return found.get("r") == recipient and event_ids(found, message) == ids

        # Reports come without a lease: the slot's last report may still be writing its events, or
        # have died before them; so the update writes them again with its own (UPDATED_OLD).
        return self._change(update, message, events, FEEDBACK_SLOT, own=own, own_result=False, replaces=True)

    def restore(self, message: Message, recipient: str, events: list[Event]) -> None:
        """The events of a report whose change is recorded already, by this report or before one that
        moved the recipient on (its worker may have died after the change, before its events): `fb`'s,
        as first made, while it holds them; else those of the events whose ids the message's events
        do not have yet (the by_message index), rebuilt from the report: its ids and SES's times."""
        item = (
            self._db.get_item(
                TableName=self._table,
                Key=message_key(message.id),
                ConsistentRead=True,
                ProjectionExpression=FEEDBACK_SLOT,
            ).get("Item")
            or {}
        )
        kept = self._slot_events(message, item, FEEDBACK_SLOT)
        if {event.id for event in kept} & {event.id for event in events}:
            self._write_events(kept)
            return
        stored = self._stored_ids(message.id, {event.id for event in events})
        self._write_events([event for event in events if event.id not in stored])

    def _stored_ids(self, message_id: str, ids: set[str]) -> set[str]:
        """Which of `ids` the message's events have (its own or another report's of the same kind,
        with another time: an event's key holds its time, so a put of it would be a second item)."""
        found: set[str] = set()
        names = {f":i{index}": {"S": ident} for index, ident in enumerate(sorted(ids))}
        request = {
            "TableName": self._events,
            "IndexName": BY_MESSAGE_INDEX,
            "KeyConditionExpression": "message_id = :id",
            "FilterExpression": f"#id IN ({', '.join(names)})",
            "ProjectionExpression": "#id",
            "ExpressionAttributeNames": {"#id": "id"},
            "ExpressionAttributeValues": {":id": {"S": message_id}, **names},
        }
        for page in self._db.get_paginator("query").paginate(**request):
            found.update(entry["id"]["S"] for entry in page["Items"])
        return found

    def _recipient_update(
        self,
        message: Message,
        recipient: str,
        *,
        condition: str,
        values: dict[str, Any],
        sets: str | None = None,
        removes: str | None = None,
        slot: tuple[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """One recipient's state (from `message`), the message status and delivered_at, if `condition`;
        `slot`: an attribute and the packed events it keeps."""
        values = {
            **values,
            ":state": {"S": message.recipients[recipient].value},
            ":status": {"S": message.status.value},
        }
        expression = "recipients.#r = :state, #status = :status" + (f", {sets}" if sets else "")
        if slot is not None:
            expression += f", {slot[0]} = :slot"
            values[":slot"] = to_value(slot[1])
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
