"""The webhook deliveries table: one item per (event, target), its attempts inside it.

    WHD#<delivery id>   D     the delivery; expires_at is its TTL (the account's history retention)
    index by_endpoint:  endpoint_key = <account>#<endpoint id or "url">#<yyyy-mm>, created_sk
                        one endpoint's deliveries, newest first, a bounded partition per month

Recording an attempt is a put conditioned on the attempt count it read, so two workers that
race on one delivery cannot both record attempt n.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.adapters.dynamo import from_attrs, key, to_attrs
from postline.domain.webhook_delivery import Delivery

BY_ENDPOINT_INDEX = "by_endpoint"
_SK = "D"


def _pk(delivery_id: str) -> str:
    return f"WHD#{delivery_id}"


def endpoint_key(account_id: str, endpoint_id: str | None, month: str) -> str:
    return f"{account_id}#{endpoint_id or 'url'}#{month}"


def _item(delivery: Delivery) -> dict[str, Any]:
    data = delivery.model_dump(mode="json")
    data["attempt_count"] = len(delivery.attempts)
    data["endpoint_key"] = endpoint_key(delivery.account_id, delivery.endpoint_id, f"{delivery.created_at:%Y-%m}")
    data["created_sk"] = f"{delivery.created_at:%Y-%m-%dT%H:%M:%S.%f}#{delivery.id}"
    return {**key(_pk(delivery.id), _SK), **to_attrs(data)}


def _delivery(attrs: dict[str, Any]) -> Delivery:
    return Delivery.model_validate(from_attrs(attrs))


class DynamoDeliveryStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def create(self, delivery: Delivery) -> bool:
        """False when it exists already (a redelivered event record)."""
        try:
            self._db.put_item(
                TableName=self._table, Item=_item(delivery), ConditionExpression="attribute_not_exists(pk)"
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def get(self, delivery_id: str) -> Delivery | None:
        response = self._db.get_item(TableName=self._table, Key=key(_pk(delivery_id), _SK), ConsistentRead=True)
        return _delivery(response["Item"]) if "Item" in response else None

    def save(self, delivery: Delivery, *, attempts_before: int) -> bool:
        """Stores a new state of the delivery; False when someone recorded an attempt first."""
        try:
            self._db.put_item(
                TableName=self._table,
                Item=_item(delivery),
                ConditionExpression="attempt_count = :before",
                ExpressionAttributeValues={":before": {"N": str(attempts_before)}},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def for_endpoint(
        self, account_id: str, endpoint_id: str | None, months: list[str], *, since: datetime, until: datetime
    ) -> Iterator[Delivery]:
        """Newest first over the given months (newest month first), within [since, until]."""
        low = f"{since:%Y-%m-%dT%H:%M:%S.%f}"
        high = f"{until:%Y-%m-%dT%H:%M:%S.%f}~"  # '~' sorts after '#<id>'
        paginator = self._db.get_paginator("query")
        for month in months:
            pages = paginator.paginate(
                TableName=self._table,
                IndexName=BY_ENDPOINT_INDEX,
                KeyConditionExpression="endpoint_key = :k AND created_sk BETWEEN :low AND :high",
                ExpressionAttributeValues={
                    ":k": {"S": endpoint_key(account_id, endpoint_id, month)},
                    ":low": {"S": low},
                    ":high": {"S": high},
                },
                ScanIndexForward=False,
            )
            for page in pages:
                for attrs in page["Items"]:
                    yield _delivery(attrs)
