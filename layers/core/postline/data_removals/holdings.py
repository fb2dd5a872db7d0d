"""The holdings a removal erases, one adapter per kind of stored data (ports.Holding).

Every adapter finds what names the address by a key, an index or a bounded walk of the account's
own partitions (never a table Scan), one page at a time (`find`: what the page erases, counted on
strongly consistent reads of the base table, and where the next page starts), and erases a found
page (`apply`: idempotent). The worker saves a found page with its counts before applying it.

    messages       events by the by_recipient index; each event's message (row kept, recipient
                   fields replaced by the erasure token; its body's item kept, data key destroyed:
                   tombstoned), its metrics once-per-pair markers (re-keyed under the token), the
                   message-level events that name the address; then the webhook deliveries of
                   those events by key (every one, pending ones too: by_endpoint holds a delivery
                   only from its first attempt), each replaced by a tombstone so a late fan-out of
                   the event's stream record opens none again (and the event's erasure mark, for an
                   endpoint created since), then the events and their tag items
    deliveries     webhook delivery history (by_endpoint, month by month) whose payload names it
    verifications  recipient activity (counters), bulk verification rows and results (jobs table)
    files          export, import and verification files (exports bucket) that contain it: deleted
    suppressions   plaintext entries -> one keyed-hash entry (suppressions/store.py erase)
    records        list members (deleted), and whatever else in the account's resources and jobs
                   partitions names it (audit details, jobs' fields): scrubbed in place
    replays        idempotency records whose stored reply names it (this account's messages)
    uploads        upload download records: the uploads area is not built yet; nothing to erase
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from postline.content_checks.store import COPY_PREFIX
from postline.data_removals.domain import Batch, Tally, erasure_token, file_mentions, mentions, scrub
from postline.events.store import BY_MESSAGE_INDEX, BY_RECIPIENT_INDEX, recipient_key, sort_key, tag_keys
from postline.lists.store import LIST, MEMBER, members_pk
from postline.sending.store import BODY_SK, FEEDBACK_SLOT, MESSAGE_SK, RECORD_SLOT
from postline.shared.clock import SystemClock
from postline.shared.dynamo import batch_delete, batch_get, batch_write, from_attrs, key
from postline.shared.ports import Clock
from postline.shared.resources_table import account_pk
from postline.suppressions.store import DynamoSuppressions
from postline.webhook_delivery.domain import Target, delivery_id, erasure_mark_id
from postline.webhook_delivery.store import BY_ENDPOINT_INDEX, endpoint_key, tombstone_item
from postline.webhooks.store import PREFIX as WEBHOOK_PREFIX

PAGE = 100  # items one batch reads
HISTORY_MONTHS = 13  # delivery history is kept 12 months at most (retention/domain.py)
FILE_PREFIXES = ("exports", "imports", "verifications")  # <prefix>/<account>/... in the exports bucket
_REMOVAL_SK = "REMOVAL#"  # the removals' own items in the jobs partition: never scrubbed


def _position(page: dict[str, Any]) -> dict[str, Any] | None:
    return page.get("LastEvaluatedKey")


class MessagesHolding:
    def __init__(
        self,
        client: Any,
        s3: Any,
        *,
        events: str,
        messages: str,
        counters: str,
        content_bucket: str,
        resources: str | None = None,
        deliveries: str | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._db = client
        self._s3 = s3
        self._events = events
        self._messages = messages
        self._counters = counters
        self._bucket = content_bucket
        self._resources = resources  # with `deliveries`: the events' webhook deliveries are erased too
        self._deliveries = deliveries
        self._clock = clock or SystemClock()  # dates the deliveries' tombstones

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        request: dict[str, Any] = {
            "TableName": self._events,
            "IndexName": BY_RECIPIENT_INDEX,
            "KeyConditionExpression": "recipient_key = :k",
            "ExpressionAttributeValues": {":k": {"S": recipient_key(account_id, address)}},
            "ProjectionExpression": "pk, sk, message_id",
            "Limit": PAGE,
        }
        if cursor:
            request["ExclusiveStartKey"] = cursor
        page = self._db.query(**request)
        tally: Tally = {}
        message_ids = list(dict.fromkeys(item["message_id"]["S"] for item in page["Items"]))
        events = [key(item["pk"]["S"], item["sk"]["S"]) for item in page["Items"]]
        for message_id in message_ids:
            _add(tally, self._message_tally(message_id, address))
            events += self._message_level_events(message_id, address)
        present = batch_get(self._db, self._events, events, projection="pk, sk")  # the index may lag
        _add(tally, {"events": len(present)})
        work = {"messages": message_ids, "events": [[item["pk"]["S"], item["sk"]["S"]] for item in present]}
        return Batch(work=work, tally=tally, next=_position(page))

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        token = erasure_token(address_hash)
        for message_id in work.get("messages", []):  # messages first: a batch cut short finds its events again
            self._erase_message(message_id, address, token)
            self._rekey_unique_markers(account_id, message_id, address, token)
        self._delete_events(account_id, [key(pk, sk) for pk, sk in work.get("events", [])])

    def _stored_message(self, message_id: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The message item and its body's item (sending/store.py), raw, on consistent reads; None
        where absent (a message stored before bodies had an item holds `sealed` itself)."""
        keys = [key(f"MSG#{message_id}", MESSAGE_SK), key(f"MSG#{message_id}", BODY_SK)]
        found = {item["sk"]["S"]: item for item in batch_get(self._db, self._messages, keys)}
        return found.get(MESSAGE_SK), found.get(BODY_SK)

    def _message_tally(self, message_id: str, address: str) -> Tally:
        """What erasing the message will change: nothing when an earlier batch did it already."""
        found, body = self._stored_message(message_id)
        if found is None:
            return {}
        sealed = found.pop("sealed", None) or (body or {}).get("sealed", {})
        key_left = "dek" in sealed.get("M", {})
        if not key_left and not mentions(json.dumps(found), address):
            return {}
        return {"messages": 1, **({"body_deks_destroyed": 1, "dek_tombstoned": 1} if key_left else {})}

    def _erase_message(self, message_id: str, address: str, token: str) -> None:
        self._erase_copies(message_id)
        found, body = self._stored_message(message_id)
        if found is None:
            return
        if body is not None and "dek" in body.get("sealed", {}).get("M", {}):  # first: a repeat finds the rest
            self._db.put_item(TableName=self._messages, Item={**body, "sealed": self._destroyed(body["sealed"])})
        sealed = found.pop("sealed", None)
        # A last record's events kept for a rewrite (sending/store.py) that name the address: gone,
        # or a later claim or report would write again the events this erasure deletes.
        kept = [
            slot
            for slot in (RECORD_SLOT, FEEDBACK_SLOT)
            if slot in found and mentions(json.dumps(found[slot]), address)
        ]
        for slot in kept:
            del found[slot]
        scrubbed, changed = scrub(found, address, token)
        changed = changed or bool(kept)
        if sealed is not None and "dek" in sealed.get("M", {}):
            sealed = self._destroyed(sealed)
            changed = True
        if changed:
            self._db.put_item(TableName=self._messages, Item={**scrubbed, **({"sealed": sealed} if sealed else {})})

    def _destroyed(self, sealed: dict[str, Any]) -> dict[str, Any]:
        """A sealed body (raw) without its wrapped data key or ciphertext, its ciphertext in S3 deleted:
        no key anywhere opens it again. The KEK stays: without the data key it opens nothing."""
        stored = sealed["M"].get("s3", {}).get("S")
        if stored:
            self._s3.delete_object(Bucket=self._bucket, Key=stored)
        return {"M": {"kek": sealed["M"]["kek"], "erased": {"BOOL": True}}}

    def _erase_copies(self, message_id: str) -> None:
        """A test-mode message's kept copies (content_checks/store.py): every recipient's copy names the To
        addresses, so all of them go, with their ciphertext in S3."""
        request: dict[str, Any] = {
            "TableName": self._messages,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :copy)",
            "ExpressionAttributeValues": {":pk": {"S": f"MSG#{message_id}"}, ":copy": {"S": COPY_PREFIX}},
            "ProjectionExpression": "pk, sk, sealed.s3",
            "ConsistentRead": True,
        }
        while True:
            page = self._db.query(**request)
            for item in page["Items"]:
                stored = item.get("sealed", {}).get("M", {}).get("s3", {}).get("S")
                if stored:
                    self._s3.delete_object(Bucket=self._bucket, Key=stored)
            batch_delete(self._db, [(self._messages, key(i["pk"]["S"], i["sk"]["S"])) for i in page["Items"]])
            if "LastEvaluatedKey" not in page:
                return
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _rekey_unique_markers(self, account_id: str, message_id: str, address: str, token: str) -> None:
        """The metrics roll-up's once-per-pair markers (metrics/store.py MUQ#): kept, so a later
        open of the same message still does not count as unique again, under the token instead."""
        page = self._db.query(
            TableName=self._counters,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": f"MUQ#{account_id}#{message_id}"}},
            ConsistentRead=True,
        )
        for item in page["Items"]:
            if mentions(item["sk"]["S"], address):
                scrubbed, _ = scrub(item, address, token)
                self._db.put_item(TableName=self._counters, Item=scrubbed)
                self._db.delete_item(TableName=self._counters, Key=key(item["pk"]["S"], item["sk"]["S"]))

    def _message_level_events(self, message_id: str, address: str) -> list[dict[str, Any]]:
        """The message's events without a recipient that still name the address (in their data)."""
        found: list[dict[str, Any]] = []
        request: dict[str, Any] = {
            "TableName": self._events,
            "IndexName": BY_MESSAGE_INDEX,
            "KeyConditionExpression": "message_id = :m",
            "ExpressionAttributeValues": {":m": {"S": message_id}},
        }
        while True:
            page = self._db.query(**request)
            for item in page["Items"]:
                if "recipient_key" not in item and mentions(json.dumps(item), address):
                    found.append(key(item["pk"]["S"], item["sk"]["S"]))
            if "LastEvaluatedKey" not in page:
                return found
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _delete_events(self, account_id: str, keys: list[dict[str, Any]]) -> int:
        """The events that still exist among `keys` (consistent reads: the index may lag), with
        their webhook deliveries and tag items first, so a batch cut short finds the event again."""
        present = batch_get(self._db, self._events, keys)
        self._delete_deliveries(account_id, present)
        tags: list[tuple[str, dict[str, Any]]] = []
        for item in present:
            event = from_attrs(item)
            stamp = datetime.fromisoformat(str(event["timestamp"]).replace("Z", "+00:00"))
            sk = sort_key(stamp, event["id"])  # the tag items are in the event's own day and shard
            tags += [(self._events, k) for k in tag_keys(event["account_id"], event["pk"], sk, event.get("tags") or [])]
        batch_delete(self._db, tags)
        batch_delete(self._db, [(self._events, key(item["pk"]["S"], item["sk"]["S"])) for item in present])
        return len(present)

    def _delete_deliveries(self, account_id: str, events: list[dict[str, Any]]) -> None:
        """The webhook deliveries of these events, by key (delivery_id of the event and each target:
        the account's endpoints, disabled ones too, and the event's own webhook_url), each replaced
        by a tombstone (webhook_delivery/store.py tombstone_item), whether a delivery was there or
        not. A delivery whose first attempt is under way (not in by_endpoint yet) is erased so, and
        its attempt's record is refused (its condition on `attempts` fails on a tombstone), so it
        does not come back; and a fan-out of the event's stream record that comes after this (a
        lagging or redelivered batch: the stream keeps records 24 hours) finds its open write
        refused and POSTs nothing. Each event's erasure mark first, before the endpoints are read:
        an endpoint created after that read has no tombstone, and the fan-out asks the mark for it.
        One write unit a key, (endpoints + 2) a webhook-carrying event, (endpoints + 1) another, and
        only on a removal; no read first."""
        if self._resources is None or self._deliveries is None or not events:
            return
        found = [from_attrs(item) for item in events]
        now = self._clock.now()
        marks = dict.fromkeys(erasure_mark_id(str(event["id"])) for event in found)
        batch_write(self._db, [(self._deliveries, tombstone_item(each, now)) for each in marks])
        endpoints = [e for e in _endpoint_ids(self._db, self._resources, account_id) if e is not None]
        ids: dict[str, None] = {}  # one put a key: a BatchWriteItem refuses a key twice
        for event in found:
            targets = [Target(endpoint_id=endpoint, url="") for endpoint in endpoints]  # its key: the id alone
            if event.get("webhook_url"):
                targets.append(Target(endpoint_id=None, url=str(event["webhook_url"])))
            ids.update(dict.fromkeys(delivery_id(str(event["id"]), target) for target in targets))
        batch_write(self._db, [(self._deliveries, tombstone_item(each, now)) for each in ids])


def _endpoint_ids(client: Any, resources: str, account_id: str) -> list[str | None]:
    """The account's webhook endpoints (deleted ones' history expires with its TTL), and None for
    per-message webhook URLs."""
    ids: list[str | None] = [None]
    request: dict[str, Any] = {
        "TableName": resources,
        "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
        "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": WEBHOOK_PREFIX}},
        "ProjectionExpression": "sk",
    }
    while True:
        page = client.query(**request)
        ids += sorted(attrs["sk"]["S"].removeprefix(WEBHOOK_PREFIX) for attrs in page["Items"])
        if "LastEvaluatedKey" not in page:
            return ids
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class DeliveriesHolding:
    """Webhook delivery history naming the address: per endpoint (and per-message URLs), month by
    month over the longest retention, the payloads filtered for each form of the address."""

    def __init__(self, client: Any, *, resources: str, deliveries: str, clock: Clock) -> None:
        self._db = client
        self._resources = resources
        self._deliveries = deliveries
        self._clock = clock

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        position = cursor or {"endpoint": 0, "month": 0}
        endpoints = _endpoint_ids(self._db, self._resources, account_id)
        months = _months(self._clock.now(), HISTORY_MONTHS)
        if position["endpoint"] >= len(endpoints):
            return Batch()
        month = months[position["month"]]
        request: dict[str, Any] = {
            "TableName": self._deliveries,
            "IndexName": BY_ENDPOINT_INDEX,
            "KeyConditionExpression": "endpoint_key = :k",
            "FilterExpression": "contains(#body, :a) OR contains(#body, :b)",
            "ExpressionAttributeNames": {"#body": "body"},
            "ExpressionAttributeValues": {
                ":k": {"S": endpoint_key(account_id, endpoints[position["endpoint"]], month)},
                ":a": {"S": address},
                ":b": {"S": address.lower()},
            },
            "ProjectionExpression": "pk, sk",
            "Limit": PAGE * 2,
        }
        if position.get("after"):
            request["ExclusiveStartKey"] = position["after"]
        page = self._db.query(**request)
        work = {"deliveries": [[item["pk"]["S"], item["sk"]["S"]] for item in page["Items"]]}
        if "LastEvaluatedKey" in page:
            return Batch(work=work, next={**position, "after": page["LastEvaluatedKey"]})
        following = {"endpoint": position["endpoint"], "month": position["month"] + 1}
        if following["month"] >= len(months):
            following = {"endpoint": position["endpoint"] + 1, "month": 0}
        return Batch(work=work, next=following)

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        batch_delete(self._db, [(self._deliveries, key(pk, sk)) for pk, sk in work.get("deliveries", [])])


class VerificationsHolding:
    """The recipient's activity item, then the account's bulk verification items naming the
    address: results deleted (each a verification), rows of chunks scrubbed."""

    def __init__(self, client: Any, *, counters: str, jobs: str) -> None:
        self._db = client
        self._counters = counters
        self._jobs = jobs

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        tally: Tally = {}
        work: dict[str, list[list[str]]] = {"counters": [], "delete": [], "scrub": []}
        if cursor is None:
            activity = [key(f"ACTIVITY#{account_id}#{form}", "totals") for form in {address.lower(), address}]
            for item in batch_get(self._db, self._counters, activity, projection="pk, sk"):
                work["counters"].append([item["pk"]["S"], item["sk"]["S"]])
                _add(tally, {"verifications": 1})
        request: dict[str, Any] = {
            "TableName": self._jobs,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :verify)",
            "ExpressionAttributeValues": {":pk": {"S": f"JOB#{account_id}"}, ":verify": {"S": "VERIFY#"}},
            "ConsistentRead": True,
            "Limit": PAGE,
        }
        if cursor and cursor.get("after"):
            request["ExclusiveStartKey"] = cursor["after"]
        page = self._db.query(**request)
        for item in page["Items"]:
            if not mentions(json.dumps(item), address):
                continue
            if "#R#" in item["sk"]["S"]:
                work["delete"].append([item["pk"]["S"], item["sk"]["S"]])
                _add(tally, {"verifications": 1})
            else:
                work["scrub"].append([item["pk"]["S"], item["sk"]["S"]])
        following = _position(page)
        return Batch(work=work, tally=tally, next={"after": following} if following else None)

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        batch_delete(self._db, [(self._counters, key(pk, sk)) for pk, sk in work.get("counters", [])])
        batch_delete(self._db, [(self._jobs, key(pk, sk)) for pk, sk in work.get("delete", [])])
        _scrub_items(self._db, self._jobs, work.get("scrub", []), address, erasure_token(address_hash))


class FilesHolding:
    """Files of the account in the exports bucket (event and suppression exports, imports, bulk
    verification results) that contain the address in any form: deleted, each an export purged."""

    def __init__(self, s3: Any, *, bucket: str) -> None:
        self._s3 = s3
        self._bucket = bucket

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        position = cursor or {"prefix": 0}
        request: dict[str, Any] = {
            "Bucket": self._bucket,
            "Prefix": f"{FILE_PREFIXES[position['prefix']]}/{account_id}/",
            "MaxKeys": PAGE,
        }
        if position.get("token"):
            request["ContinuationToken"] = position["token"]
        listed = self._s3.list_objects_v2(**request)
        doomed = [
            stored["Key"]
            for stored in listed.get("Contents", [])
            if file_mentions(self._s3.get_object(Bucket=self._bucket, Key=stored["Key"])["Body"].read(), address)
        ]
        work, tally = {"files": doomed}, ({"exports_purged": len(doomed)} if doomed else {})
        if listed.get("IsTruncated"):
            return Batch(work=work, tally=tally, next={**position, "token": listed["NextContinuationToken"]})
        if position["prefix"] + 1 < len(FILE_PREFIXES):
            return Batch(work=work, tally=tally, next={"prefix": position["prefix"] + 1})
        return Batch(work=work, tally=tally)

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        for stored in work.get("files", []):
            self._s3.delete_object(Bucket=self._bucket, Key=stored)


class SuppressionsHolding:
    def __init__(self, suppressions: DynamoSuppressions) -> None:
        self._suppressions = suppressions

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        return Batch(work={"erase": True})  # one idempotent transaction: nothing to count

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        self._suppressions.erase(account_id, address, address_hash)


class RecordsHolding:
    """The account's list members named by the address (deleted, each list's member_count one
    less), then every other item of its resources and jobs partitions that names it, scrubbed in
    place (an item whose key names it is deleted: a key cannot change)."""

    def __init__(self, client: Any, *, resources: str, jobs: str) -> None:
        self._db = client
        self._resources = resources
        self._jobs = jobs

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        position = cursor or {"table": 0}
        table, pk = [(self._resources, account_pk(account_id)), (self._jobs, f"JOB#{account_id}")][position["table"]]
        request: dict[str, Any] = {
            "TableName": table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ConsistentRead": True,
            "Limit": PAGE,
        }
        if position.get("after"):
            request["ExclusiveStartKey"] = position["after"]
        page = self._db.query(**request)
        work: dict[str, Any] = {"table": position["table"], "lists": [], "delete": [], "scrub": []}
        for item in page["Items"]:
            sk = item["sk"]["S"]
            if table == self._resources and sk.startswith(LIST):
                work["lists"].append(sk.removeprefix(LIST))
            if sk.startswith(_REMOVAL_SK) or not mentions(json.dumps(item), address):
                continue
            work["delete" if mentions(sk, address) else "scrub"].append([pk, sk])
        following = _position(page)
        if following:
            return Batch(work=work, next={"table": position["table"], "after": following})
        return Batch(work=work, next={"table": 1} if position["table"] == 0 else None)

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        table = [self._resources, self._jobs][work.get("table", 0)]
        for list_id in work.get("lists", []):
            self._erase_member(list_id, address)
        batch_delete(self._db, [(table, key(pk, sk)) for pk, sk in work.get("delete", [])])
        _scrub_items(self._db, table, work.get("scrub", []), address, erasure_token(address_hash))

    def _erase_member(self, list_id: str, address: str) -> None:
        for form in dict.fromkeys([address, address.lower()]):
            member = key(members_pk(list_id), f"{MEMBER}{form}")
            gone = self._db.delete_item(TableName=self._resources, Key=member, ReturnValues="ALL_OLD")
            if "Attributes" in gone:
                self._db.update_item(
                    TableName=self._resources,
                    Key=key(members_pk(list_id), f"{LIST}{list_id}"),
                    UpdateExpression="ADD member_count :minus",
                    ConditionExpression="attribute_exists(pk)",
                    ExpressionAttributeValues={":minus": {"N": "-1"}},
                )


class ReplaysHolding:
    """Idempotency records (sending/idempotency.py: a keyed send's stored reply, kept 24 hours)
    whose reply names the address and one of this account's messages: scrubbed in place, so a
    replay of the key still answers (with the token) and sends nothing again. The record's key is
    a hash of the account, mode and client key, so no read narrower than the table exists: the step
    scans it a page at a time, filtered to the address; a day of keyed requests at most."""

    def __init__(self, client: Any, *, table: str, messages: str) -> None:
        self._db = client
        self._table = table
        self._messages = messages

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        request: dict[str, Any] = {
            "TableName": self._table,
            "FilterExpression": "contains(#data, :a) OR contains(#data, :b)",
            "ExpressionAttributeNames": {"#data": "data"},
            "ExpressionAttributeValues": {":a": {"S": address}, ":b": {"S": address.lower()}},
            "ProjectionExpression": "id, #data",
            "ConsistentRead": True,
            "Limit": PAGE * 10,
        }
        if cursor:
            request["ExclusiveStartKey"] = cursor
        page = self._db.scan(**request)
        mine = [item["id"]["S"] for item in page["Items"] if self._accounts_own(account_id, item["data"]["S"])]
        return Batch(work={"records": mine}, next=_position(page))

    def _accounts_own(self, account_id: str, data: str) -> bool:
        ids = sorted(set(re.findall(r"msg_[0-9A-Za-z]+", data)))
        found = batch_get(self._db, self._messages, [key(f"MSG#{i}", MESSAGE_SK) for i in ids], "account_id")
        return any(item["account_id"]["S"] == account_id for item in found)

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        token = erasure_token(address_hash)
        for record_id in work.get("records", []):
            found = self._db.get_item(TableName=self._table, Key={"id": {"S": record_id}}, ConsistentRead=True)
            if "Item" in found:
                scrubbed, changed = scrub(found["Item"], address, token)
                if changed:
                    self._db.put_item(TableName=self._table, Item=scrubbed)


class UploadDownloads:
    """Upload download records: nothing of them holds a recipient's address, so upload_downloads is 0.

    A hit on a hosted link (uploads/store.py record_hit, an `UPLOADHIT#<upload>#<time>#<rand>` item)
    holds `upload_id, human, reason, ip, user_agent, at`, and the upload its `download_count`. The
    link's token names the account and the upload only (one link for every reader, signed), and the
    `delivered` parameter a click redirect adds is the message's delivery time, never stored; so no
    hit can be found by, or tied back to, an address. The click that led to it (a `clicked` event
    with the recipient and the hosted link as its url) is erased with the events. The upload's file
    and filename are the account's own content, not searched. A hosted link that one day carried its
    recipient (or its message) would be erased, and counted, here."""

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        return Batch()

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        return None


def _scrub_items(db: Any, table: str, keys: list[list[str]], address: str, token: str) -> None:
    """Each item (read again, consistently) with every form of the address replaced by the token."""
    for pk, sk in keys:
        found = db.get_item(TableName=table, Key=key(pk, sk), ConsistentRead=True).get("Item")
        if found is not None:
            scrubbed, changed = scrub(found, address, token)
            if changed:
                db.put_item(TableName=table, Item=scrubbed)


def _add(tally: Tally, more: Tally) -> None:
    for name, value in more.items():
        if value:
            tally[name] = tally.get(name, 0) + value


def _months(now: datetime, count: int) -> list[str]:
    """yyyy-mm of the last `count` months, this one first."""
    months, year, month = [], now.year, now.month
    for _ in range(count):
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year - 1, 12) if month == 1 else (year, month - 1)
    return months
