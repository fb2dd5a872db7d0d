"""The counters table: API rate windows (per account, per source address) and usage counters
(atomic ADD, TTL-expired)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import cancellation_codes, conditional_failed, from_attrs, key
from postline.usage.quota import EmailLimits

# How long a charge's marker is kept: longer than any retry of the step that counted it (a list page's
# message comes back for at most a few hours).
CHARGE_DAYS = 3
CREDITS = "CREDITS"  # the sort key of an account's pay-as-you-go balance


def usage_pk(account_id: str) -> str:
    return f"USAGE#{account_id}"


def day_attribute(month: str, day: str) -> str:
    """The attribute of the month's item (`M#<month>`) that counts a day's emails: `d` and the day of
    the month (`d07`). Until 2026-11-28 a day had an item of its own (`D#<day>`), read still (usage)."""
    if not day.startswith(month):
        raise ValueError(f"day {day} is not in month {month}")
    return f"d{day[-2:]}"


class DynamoCounterStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def count_request(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        return self._count(f"RATE#{account_id}", window_start, expires_at)

    def uncount_request(self, account_id: str, window_start: int) -> None:
        self._db.update_item(
            TableName=self._table,
            Key=key(f"RATE#{account_id}", str(window_start)),
            UpdateExpression="ADD requests :minus",
            ConditionExpression="attribute_exists(requests)",
            ExpressionAttributeValues={":minus": {"N": "-1"}},
        )

    def count_source_request(self, source: str, window_start: int, *, expires_at: int) -> int:
        return self._count(f"RATE_IP#{source}", window_start, expires_at)

    def count_window(self, name: str, window_start: int, *, expires_at: int) -> int:
        """Atomically adds one to any other fixed window (`name`: what it counts, e.g. SMTP submissions
        of an account); returns the new count. The item expires (TTL) at `expires_at`."""
        return self._count(name, window_start, expires_at)

    def window_count(self, name: str, window_start: int) -> int:
        """What `count_window` has counted in that window so far (a consistent read; 0 when none)."""
        response = self._db.get_item(
            TableName=self._table,
            Key=key(name, str(window_start)),
            ConsistentRead=True,
            ProjectionExpression="requests",
        )
        return int(from_attrs(response.get("Item") or {}).get("requests", 0))

    def count_bulk_call(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        """The suppressions bulk routes' own window (bulk add, bulk delete, import): one more call."""
        return self._count(f"SUP_BULK#{account_id}", window_start, expires_at)

    def take_bulk_entries(
        self, account_id: str, window_start: int, count: int, *, limit: int, expires_at: int, call: str
    ) -> bool:
        """`count` more entries in the same window's item for the call `call` (a digest of what it
        does), unless that passes `limit` (then nothing). A call already charged in this window is
        not charged again (True): its retry, say after API Gateway cut the first try at 29 s, does
        the work the first paid for. At most BULK_CALLS_PER_MINUTE digests share a window's item."""
        try:
            self._db.update_item(
                TableName=self._table,
                Key=key(f"SUP_BULK#{account_id}", str(window_start)),
                UpdateExpression="ADD entries :n, charged :calls SET expires_at = if_not_exists(expires_at, :ttl)",
                ConditionExpression=(
                    "(attribute_not_exists(entries) OR entries <= :room) AND NOT contains(charged, :call)"
                ),
                ExpressionAttributeValues={
                    ":n": {"N": str(count)},
                    ":room": {"N": str(limit - count)},
                    ":calls": {"SS": [call]},
                    ":call": {"S": call},
                    ":ttl": {"N": str(expires_at)},
                },
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise
            response = self._db.get_item(
                TableName=self._table,
                Key=key(f"SUP_BULK#{account_id}", str(window_start)),
                ConsistentRead=True,
                ProjectionExpression="charged",
            )
            return call in (response.get("Item") or {}).get("charged", {}).get("SS", [])
        return True

    def _count(self, pk: str, window_start: int, expires_at: int) -> int:
        response = self._db.update_item(
            TableName=self._table,
            Key=key(pk, str(window_start)),
            UpdateExpression="ADD requests :one SET expires_at = if_not_exists(expires_at, :ttl)",
            ExpressionAttributeValues={":one": {"N": "1"}, ":ttl": {"N": str(expires_at)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["requests"]["N"])

    def usage(self, account_id: str, *, month: str, day: str) -> dict[str, int]:
        pk = usage_pk(account_id)
        response = self._db.batch_get_item(
            RequestItems={self._table: {"Keys": [key(pk, f"M#{month}"), key(pk, f"D#{day}")]}}
        )
        found = {item["sk"]["S"]: from_attrs(item) for item in response["Responses"].get(self._table, [])}
        monthly, daily = found.get(f"M#{month}", {}), found.get(f"D#{day}", {})
        return {
            "emails": int(monthly.get("emails", 0)),
            "verify": int(monthly.get("verify", 0)),
            "test_emails": int(monthly.get("test_emails", 0)),  # the test allowance (usage/quota.py)
            "test_verify": int(monthly.get("test_verify", 0)),  # its verifications (verification/store.py)
            # The day's count in the month's item, and in the day's own item where it was kept before
            # (2026-11-28): the day of the change reads whole.
            "emails_daily": int(monthly.get(day_attribute(month, day), 0)) + int(daily.get("emails", 0)),
        }

    def consume_emails(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
    ) -> str | None:
        # One conditional UpdateItem of the month's item, which holds the day's count too (`d<DD>`):
        # each limit checked on its own attribute in the one write, so two concurrent sends can never
        # both take the last emails of a quota (1 write unit; a transaction of two items was 4). A
        # `charge` is written beside it in a transaction, once: a retry of a step that died after this
        # (before it stored its messages) finds it and is not counted again.
        update, windows = self._email_update(account_id, count, month=month, day=day, limits=limits)
        for name, limit in windows:
            if limit is not None and count > limit:
                return name
        try:
            if charge is None:
                self._db.update_item(**update, ReturnValuesOnConditionCheckFailure="ALL_OLD")
            else:
                marker = self._charge_marker(account_id, day, charge)
                self._db.transact_write_items(
                    TransactItems=[{"Update": {**update, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
                                   {"Put": marker}]
                )  # fmt: skip
        except ClientError as error:
            if conditional_failed(error):
                return self._stopped_by(error.response.get("Item"), update, count, windows)
            codes = cancellation_codes(error)
            if charge is not None and codes[1:2] == ["ConditionalCheckFailed"]:
                return None  # counted by an earlier try of the same step
            if codes[:1] == ["ConditionalCheckFailed"]:
                reasons = error.response.get("CancellationReasons") or [{}]
                return self._stopped_by(reasons[0].get("Item"), update, count, windows)
            raise
        return None

    def _email_update(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits
    ) -> tuple[dict[str, Any], list[tuple[str, int | None]]]:
        """The month item's conditional ADD of `count` emails (and the day's, but for the test
        allowance, which is monthly only), and its windows: (name, limit) in the order they stop a send."""
        windows: list[tuple[str, int | None]] = [("monthly", limits.monthly)]
        names = {"#m": "test_emails" if limits.test else "emails"}
        if not limits.test:
            windows.append(("daily", limits.daily))
            names["#d"] = day_attribute(month, day)
        values: dict[str, Any] = {":n": {"N": str(count)}}
        conditions = []
        for (_, limit), name in zip(windows, names, strict=True):
            if limit is not None:
                conditions.append(f"(attribute_not_exists({name}) OR {name} <= :cap{name[1:]})")
                values[f":cap{name[1:]}"] = {"N": str(limit - count)}
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": key(usage_pk(account_id), f"M#{month}"),
            "UpdateExpression": "ADD " + ", ".join(f"{name} :n" for name in names),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        if conditions:
            update["ConditionExpression"] = " AND ".join(conditions)
        return update, windows

    def _stopped_by(
        self, old: dict[str, Any] | None, update: dict[str, Any], count: int, windows: list[tuple[str, int | None]]
    ) -> str:
        """Which window a refused count would have passed, from the month item as the refusal found it
        (read again where the refusal did not return it)."""
        if old is None:
            old = self._db.get_item(TableName=self._table, Key=update["Key"], ConsistentRead=True).get("Item") or {}
        found = from_attrs(old)
        for (name, limit), attribute in zip(windows, update["ExpressionAttributeNames"].values(), strict=True):
            if limit is not None and int(found.get(attribute, 0)) + count > limit:
                return name
        return windows[0][0]

    # -- pay-as-you-go credits (usage/pool.py): one item per account, only ever ADDed to ---------------

    def grant_credits(self, account_id: str, count: int) -> int:
        """Adds prepaid credits (the operator's `postline account grant-credits`); the new balance."""
        response = self._db.update_item(
            TableName=self._table,
            Key=key(usage_pk(account_id), CREDITS),
            UpdateExpression="ADD credits :n",
            ExpressionAttributeValues={":n": {"N": str(count)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["credits"]["N"])

    def take_credits(self, account_id: str, count: int, *, charge: str | None = None, day: str = "") -> bool:
        """Spends `count` credits at once if the balance holds them (conditional: never below zero).
        With a `charge` (and the `day` it is counted on), once: a charge taken already is True."""
        update = {
            "TableName": self._table,
            "Key": key(usage_pk(account_id), CREDITS),
            "UpdateExpression": "ADD credits :minus",
            "ConditionExpression": "credits >= :n",
            "ExpressionAttributeValues": {":minus": {"N": str(-count)}, ":n": {"N": str(count)}},
        }
        try:
            if charge is None:
                self._db.update_item(**update)
            else:
                marker = self._charge_marker(account_id, day, f"{charge}#credits")
                self._db.transact_write_items(TransactItems=[{"Update": update}, {"Put": marker}])
        except ClientError as error:
            if conditional_failed(error):
                return False
            codes = cancellation_codes(error)
            if codes[1:2] == ["ConditionalCheckFailed"]:
                return True  # taken by an earlier try of the same step
            if codes[:1] == ["ConditionalCheckFailed"]:
                return False
            raise
        return True

    def credits(self, account_id: str) -> int:
        response = self._db.get_item(TableName=self._table, Key=key(usage_pk(account_id), CREDITS), ConsistentRead=True)
        return int(from_attrs(response.get("Item") or {}).get("credits", 0))

    def release_emails(
        self, account_id: str, count: int, *, month: str, day: str, test: bool, charge: str | None = None
    ) -> None:
        """Gives `count` back (one UpdateItem of the month's item, its day's count with it); with the
        `charge` that counted them, in one transaction that forgets it, so that the step's retry is
        counted afresh (and never given back twice)."""
        names = {"#m": "test_emails" if test else "emails"}
        if not test:
            names["#d"] = day_attribute(month, day)
        update = {
            "TableName": self._table,
            "Key": key(usage_pk(account_id), f"M#{month}"),
            "UpdateExpression": "ADD " + ", ".join(f"{name} :n" for name in names),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": {":n": {"N": str(-count)}},
        }
        if charge is None:
            self._db.update_item(**update)
            return
        marker = self._charge_marker(account_id, day, charge)
        forget = {"TableName": self._table, "Key": key(marker["Item"]["pk"]["S"], marker["Item"]["sk"]["S"])}
        forget["ConditionExpression"] = "attribute_exists(pk)"
        try:
            self._db.transact_write_items(TransactItems=[{"Update": update}, {"Delete": forget}])
        except ClientError as error:
            if cancellation_codes(error)[-1:] != ["ConditionalCheckFailed"]:
                raise
            # given back already (this release's retry): nothing left to give

    def _charge_marker(self, account_id: str, day: str, charge: str) -> dict[str, Any]:
        """The item that records a charge: kept CHARGE_DAYS past the day it was counted on (TTL)."""
        expires = datetime.combine(date.fromisoformat(day) + timedelta(days=CHARGE_DAYS), time(), tzinfo=UTC)
        return {
            "TableName": self._table,
            "Item": {
                **key(usage_pk(account_id), f"CHARGE#{charge}"),
                "expires_at": {"N": str(int(expires.timestamp()))},
            },
            "ConditionExpression": "attribute_not_exists(pk)",
        }
