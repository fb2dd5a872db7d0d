"""Verification's items in the counters table (atomic ADD, TTL-expired):

- RATE#{account}#validate / {window start}: the POST /v3/validate window (100 a minute);
- USAGE#{account} / M#{month}: `verify` (live credits used) and `test_verify` (the test allowance),
  beside the sending counters usage/store.py keeps there, so GET /v3/usage reads them with its own;
- VDOMAIN#{domain} / catch_all, registered: per-domain answers (catch-all for a day, the
  registration date for thirty days, an RDAP registry that could not be reached for an hour);
- ACTIVITY#{account}#{address} / totals: a recipient's history, kept by the recipient_activity
  stream consumer (ActivityCounters), one item per recipient so no partition runs hot, with the
  consumer's marks (`W_<hash>`: the last stream record of each events partition it added);
- AWM#{events partition} / -: that consumer's stream watermark as it wrote it until 2026-11-28
  (read, no longer written; expires three days after its last write).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.events.domain import Event
from postline.shared import parallel, stream_marks, stream_watermarks
from postline.shared.dynamo import batch_get, conditional_failed, from_attrs, key
from postline.usage.store import usage_pk
from postline.verification.activity import COUNTED, ActivityChunk, Recipient, Seen, tally_of, widens
from postline.verification.domain import Registration
from postline.verification.models import Activity

CATCH_ALL_TTL = timedelta(days=1)
WATERMARK_PREFIX = "AWM#"
REGISTRATION_TTL = timedelta(days=30)
# A registry that could not be reached (down, timing out, 5xx) is not asked again for an hour: a check
# of its domains meanwhile answers domain_age_days null at once instead of paying the timeout again.
REGISTRY_DOWN_TTL = timedelta(hours=1)


def activity_pk(account_id: str, address: str) -> str:
    return f"ACTIVITY#{account_id}#{address.lower()}"


class DynamoVerificationCounters:
    """The Credits port."""

    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def count_validation(self, account_id: str, window_start: int, *, expires_at: int, route: str = "validate") -> int:
        response = self._db.update_item(
            TableName=self._table,
            Key=key(f"RATE#{account_id}#{route}", str(window_start)),
            UpdateExpression="ADD requests :one SET expires_at = if_not_exists(expires_at, :ttl)",
            ExpressionAttributeValues={":one": {"N": "1"}, ":ttl": {"N": str(expires_at)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["requests"]["N"])

    def consume_verification(
        self, account_id: str, *, month: str, limit: int | None, test: bool, count: int = 1
    ) -> bool:
        update = credit_update(self._table, account_id, month=month, limit=limit, test=test, count=count)
        if update is None:
            return False
        try:
            self._db.update_item(**update)
        except ClientError as error:
            if conditional_failed(error):
                return False
            raise
        return True

    def used_verifications(self, account_id: str, *, month: str) -> int:
        item = self._db.get_item(
            TableName=self._table, Key=key(usage_pk(account_id), f"M#{month}"), ConsistentRead=True
        ).get("Item")
        return int(from_attrs(item).get("verify", 0)) if item else 0

    def release_verification(self, account_id: str, *, month: str, test: bool) -> None:
        counter = "test_verify" if test else "verify"
        self._db.update_item(
            TableName=self._table,
            Key=key(usage_pk(account_id), f"M#{month}"),
            UpdateExpression=f"ADD {counter} :minus",
            ExpressionAttributeValues={":minus": {"N": "-1"}},
        )


def credit_update(
    table: str, account_id: str, *, month: str, limit: int | None, test: bool, count: int = 1
) -> dict[str, Any] | None:
    """The conditional ADD that takes `count` credits of the month (None: more than the limit)."""
    counter = "test_verify" if test else "verify"
    update: dict[str, Any] = {
        "TableName": table,
        "Key": key(usage_pk(account_id), f"M#{month}"),
        "UpdateExpression": f"ADD {counter} :n",
        "ExpressionAttributeValues": {":n": {"N": str(count)}},
    }
    if limit is not None:
        if count > limit:
            return None
        update["ConditionExpression"] = f"attribute_not_exists({counter}) OR {counter} <= :headroom"
        update["ExpressionAttributeValues"][":headroom"] = {"N": str(limit - count)}
    return update


class DynamoDomainFacts:
    """The DomainFacts port: per-domain answers shared by every function, expired by TTL (and by
    their own expiry time, since DynamoDB deletes expired items only eventually)."""

    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def catch_all(self, domain: str, now: datetime) -> bool | None:
        item = self._get(domain, "catch_all", now)
        return None if item is None else bool(item["value"])

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None:
        self._put(domain, "catch_all", {"BOOL": catch_all}, now + CATCH_ALL_TTL)

    def registration(self, domain: str, now: datetime) -> Registration | None:
        item = self._get(domain, "registered", now)
        if item is None:
            return None
        if item.get("value") is None:
            return Registration(
                None, str(item.get("note") or "the RDAP registry could not be reached"), unreachable=True
            )
        return Registration(datetime.fromisoformat(str(item["value"])))

    def remember_registration(self, domain: str, registration: Registration, now: datetime) -> None:
        if registration.registered is not None:
            self._put(domain, "registered", {"S": registration.registered.isoformat()}, now + REGISTRATION_TTL)
        elif registration.unreachable:
            note = {"note": {"S": registration.note or "the RDAP registry could not be reached"}}
            self._put(domain, "registered", None, now + REGISTRY_DOWN_TTL, extra=note)

    def _get(self, domain: str, fact: str, now: datetime) -> dict[str, Any] | None:
        response = self._db.get_item(TableName=self._table, Key=key(f"VDOMAIN#{domain}", fact), ConsistentRead=True)
        item = response.get("Item")
        if not item:
            return None
        found = from_attrs(item)
        return found if int(found["expires_at"]) > now.timestamp() else None

    def _put(
        self,
        domain: str,
        fact: str,
        value: dict[str, Any] | None,
        expires: datetime,
        *,
        extra: dict[str, Any] | None = None,
    ) -> None:
        item = {**key(f"VDOMAIN#{domain}", fact), "expires_at": {"N": str(int(expires.timestamp()))}, **(extra or {})}
        if value is not None:
            item["value"] = value
        self._db.put_item(TableName=self._table, Item=item)


def _activity(found: dict[str, Any]) -> Activity:
    return Activity(
        seen=True,
        first_seen_at=found.get("first_seen_at"),
        last_seen_at=found.get("last_seen_at"),
        **{name: int(found.get(name, 0)) for name in COUNTED.values()},
    )


class DynamoActivity:
    """The ActivityReader port (and the recipient_activity worker's store)."""

    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def activity(self, account_id: str, address: str) -> Activity:
        response = self._db.get_item(
            TableName=self._table, Key=key(activity_pk(account_id, address), "totals"), ConsistentRead=True
        )
        item = response.get("Item")
        return _activity(from_attrs(item)) if item else Activity()

    def activities(self, account_id: str, addresses: list[str]) -> dict[str, Activity]:
        """One BatchGetItem per 100 addresses (a bulk chunk's), not a read each."""
        keys = {activity_pk(account_id, address): address.lower() for address in addresses}
        found = batch_get(self._db, self._table, [key(pk, "totals") for pk in keys])
        return {keys[str(item["pk"]["S"])]: _activity(from_attrs(item)) for item in found}

    def watermarks(self, partitions: list[str]) -> dict[str, str]:
        return stream_watermarks.read(self._db, self._table, WATERMARK_PREFIX, partitions)

    def seen(self, recipients: list[Recipient]) -> dict[Recipient, Seen]:
        keys = [key(activity_pk(account_id, address), "totals") for account_id, address in recipients]
        found = batch_get(self._db, self._table, keys, projection="pk, first_seen_at, last_seen_at")
        by_pk = {activity_pk(account_id, address): (account_id, address) for account_id, address in recipients}
        return {
            by_pk[item["pk"]["S"]]: Seen(item.get("first_seen_at", {}).get("S"), item.get("last_seen_at", {}).get("S"))
            for item in found
        }

    def apply(self, chunk: ActivityChunk, seen: dict[Recipient, Seen]) -> int:
        """One conditional UpdateItem per recipient, eight at a time (verification/activity.py)."""
        added: list[int] = []
        tasks = [self._adder(recipient, events, seen, added) for recipient, events in chunk.events.items()]
        parallel.run_each(tasks, lambda _: None)
        return sum(added)

    def _adder(
        self, recipient: Recipient, events: list[tuple[str, str, Event]], seen: dict[Recipient, Seen], added: list[int]
    ) -> Callable[[], None]:
        def add() -> None:
            added.append(self._add(recipient, events, seen))

        return add

    def _add(self, recipient: Recipient, events: list[tuple[str, str, Event]], seen: dict[Recipient, Seen]) -> int:
        """The recipient's events its item lacks: counters added, first/last seen widened where
        they widen what it held (conditional on it still holding that), its marks moved. A write
        that fails its condition is rebuilt from the item as it failed on it."""
        account_id, address = recipient
        item_key = key(activity_pk(account_id, address), "totals")
        held = seen.get(recipient, Seen())
        pending = events
        while pending:
            tally = tally_of([event for _, _, event in pending])
            sets: dict[str, dict[str, Any]] = {}
            conditions: list[str] = []
            values: dict[str, Any] = {}
            for name, at, was, earlier in (
                ("first_seen_at", tally.first_seen, held.first, True),
                ("last_seen_at", tally.last_seen, held.last, False),
            ):
                if widens(was, at, earlier=earlier):
                    sets[name] = {"S": at.isoformat()}
                    if was is None:
                        conditions.append(f"attribute_not_exists({name})")
                    else:
                        conditions.append(f"{name} = :was_{name}")
                        values[f":was_{name}"] = {"S": was}
            entries = [(partition, seq, _counts(event)) for partition, seq, event in pending]
            update = stream_marks.marked_update(
                self._table,
                item_key,
                entries,
                sets=sets,
                condition=" AND ".join(conditions) or None,
                values=values,
            )
            try:
                self._db.update_item(**update)
            except ClientError as error:
                if not conditional_failed(error):
                    raise
                item = stream_marks.found(self._db, self._table, item_key, error)
                held = Seen(item.get("first_seen_at", {}).get("S"), item.get("last_seen_at", {}).get("S"))
                kept = {(p, s) for p, s, _ in stream_marks.unheld(item, entries)}
                pending = [(p, s, event) for p, s, event in pending if (p, s) in kept]
                continue
            first = tally.first_seen.isoformat() if "first_seen_at" in sets else held.first
            last = tally.last_seen.isoformat() if "last_seen_at" in sets else held.last
            seen[recipient] = Seen(first, last)  # what the item holds now, for the next chunk
            return len(pending)
        seen[recipient] = held
        return 0


def _counts(event: Event) -> dict[str, int]:
    """What one event adds to its recipient's counters."""
    kind = COUNTED.get(event.type.value)
    return {"events": 1, **({kind: 1} if kind else {})}
