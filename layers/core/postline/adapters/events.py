"""The events table: one item per event, partitioned per account and UTC day.

    EVT#<account>#<yyyy-mm-dd>   <timestamp>#<event id>   the event; expires_at is its TTL
    index by_message: message_id, sk                         all events of one message

Day partitions keep every partition bounded however much an account sends, and a time window
maps to a known set of partitions. The stream of this table drives webhooks and metrics.
"""

from __future__ import annotations

from typing import Any

from postline.adapters.dynamo import batch_write, from_attrs, key, to_attrs
from postline.domain.events import Event

BY_MESSAGE_INDEX = "by_message"


def event_pk(account_id: str, day: str) -> str:
    return f"EVT#{account_id}#{day}"


def event_sk(event: Event) -> str:
    return f"{event.timestamp:%Y-%m-%dT%H:%M:%S.%f}Z#{event.id}"


def event_put(event: Event) -> dict[str, Any]:
    pk = event_pk(event.account_id, f"{event.timestamp:%Y-%m-%d}")
    return {**key(pk, event_sk(event)), **to_attrs(event.model_dump(mode="json"))}


def event_of(attrs: dict[str, Any]) -> Event:
    return Event.model_validate(from_attrs(attrs))


class DynamoEventStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def for_message(self, message_id: str) -> list[Event]:
        """Oldest first. Eventually consistent (an index); fine for display and tests."""
        paginator = self._db.get_paginator("query")
        return [
            event_of(item)
            for page in paginator.paginate(
                TableName=self._table,
                IndexName=BY_MESSAGE_INDEX,
                KeyConditionExpression="message_id = :id",
                ExpressionAttributeValues={":id": {"S": message_id}},
            )
            for item in page["Items"]
        ]

    def put(self, events: list[Event]) -> None:
        batch_write(self._db, [(self._table, event_put(event)) for event in events])
