"""The submission counters on the counters table, shared by every submission task: rate windows
(one-second per account, one-minute per source address for failed AUTH) through the counters
store's atomic ADD, and each account's connection seats as one item holding a map of connection id
to lease expiry, taken with a conditional write on the map's size (`size(seats) < :limit`)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import conditional_failed, from_attrs, key
from postline.smtp.domain import AUTH_WINDOW_SECONDS
from postline.usage.store import DynamoCounterStore

_SEATS_SK = "seats"


class DynamoSubmissionCounters:
    def __init__(self, client: Any, table: str, counters: DynamoCounterStore) -> None:
        self._db = client
        self._table = table
        self._counters = counters

    def count_submission(self, account_id: str, second: int) -> int:
        return self._counters.count_window(f"SMTP_RATE#{account_id}", second, expires_at=second + 60)

    def count_auth_failure(self, source: str, window_start: int) -> int:
        return self._counters.count_window(
            f"SMTP_AUTH_FAIL#{source}", window_start, expires_at=window_start + 2 * AUTH_WINDOW_SECONDS
        )

    def auth_failures(self, source: str, window_start: int) -> int:
        return self._counters.window_count(f"SMTP_AUTH_FAIL#{source}", window_start)

    def take_seat(self, account_id: str, connection_id: str, *, limit: int, now: int, until: int) -> bool:
        seats = key(_seats_pk(account_id), _SEATS_SK)
        self._db.update_item(
            TableName=self._table,
            Key=seats,
            UpdateExpression="SET seats = if_not_exists(seats, :none)",
            ExpressionAttributeValues={":none": {"M": {}}},
        )
        for _ in range(2):
            try:
                self._db.update_item(
                    TableName=self._table,
                    Key=seats,
                    UpdateExpression="SET seats.#id = :until",
                    ConditionExpression="size(seats) < :limit",
                    ExpressionAttributeNames={"#id": connection_id},
                    ExpressionAttributeValues={":until": {"N": str(until)}, ":limit": {"N": str(limit)}},
                )
                return True
            except ClientError as exc:
                if not conditional_failed(exc):
                    raise
            if not self._free_stale(seats, now):
                return False
        return False

    def renew_seat(self, account_id: str, connection_id: str, *, until: int) -> None:
        try:
            self._db.update_item(
                TableName=self._table,
                Key=key(_seats_pk(account_id), _SEATS_SK),
                UpdateExpression="SET seats.#id = :until",
                ConditionExpression="attribute_exists(seats.#id)",
                ExpressionAttributeNames={"#id": connection_id},
                ExpressionAttributeValues={":until": {"N": str(until)}},
            )
        except ClientError as exc:
            if not conditional_failed(exc):  # freed as stale meanwhile: the connection keeps going
                raise

    def leave_seat(self, account_id: str, connection_id: str) -> None:
        self._db.update_item(
            TableName=self._table,
            Key=key(_seats_pk(account_id), _SEATS_SK),
            UpdateExpression="REMOVE seats.#id",
            ExpressionAttributeNames={"#id": connection_id},
        )

    def _free_stale(self, seats: dict[str, Any], now: int) -> bool:
        """Frees the seats whose lease ran out (their task died without leaving); True when any was."""
        item = from_attrs(self._db.get_item(TableName=self._table, Key=seats, ConsistentRead=True).get("Item") or {})
        stale = [connection for connection, until in (item.get("seats") or {}).items() if int(until) <= now]
        if not stale:
            return False
        names = {f"#s{index}": connection for index, connection in enumerate(stale)}
        self._db.update_item(
            TableName=self._table,
            Key=seats,
            UpdateExpression="REMOVE " + ", ".join(f"seats.{name}" for name in names),
            ExpressionAttributeNames=names,
        )
        return True


def _seats_pk(account_id: str) -> str:
    return f"SMTP_SEATS#{account_id}"
