"""Uploads in the resources table (shared/resources_table.py):

    ACCT#<account>  UPLOAD#<id>                 an upload (newest last: ids sort by creation)
    ACCT#<account>  UPLOADS                     the quota item: committed_bytes (reserved and settled),
                                                used_bytes (settled)
    ACCT#<account>  UPLOADHIT#<id>#<time>#<n>   one hit on an upload's hosted link: a person's
                                                download or a scanner's, with the rule that matched
    UPLOADS#DUE     <time>#<account>#<id>       when the sweep looks at an upload next

DynamoDB conditions cannot add, so the quota's condition is written the other way round: a reservation
of n bytes succeeds only while committed_bytes <= quota - n, in the same transaction that stores the
upload; concurrent creates are serialised by the condition on the one quota item.
"""

from __future__ import annotations

import random
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.domains.domain import SendingDomain
from postline.domains.store import PREFIX as DOMAIN_PREFIX
from postline.shared.dynamo import batch_delete, cancellation_codes, from_attrs, key
from postline.shared.errors import Conflict, Forbidden
from postline.shared.resources_table import account_pk, put_op, transact
from postline.uploads.domain import QUOTA_EXCEEDED, Upload, UploadStatus

QUOTA_SK = "UPLOADS"
CONFLICT_RETRIES = 5
DUE_PK = "UPLOADS#DUE"


def upload_sk(upload_id: str) -> str:
    return f"UPLOAD#{upload_id}"


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _n(value: int) -> dict[str, str]:
    return {"N": str(value)}


class DynamoUploadStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    # -- reads ------------------------------------------------------------------------------------

    def get_upload(self, account_id: str, upload_id: str) -> Upload | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), upload_sk(upload_id)), ConsistentRead=True
        )
        item = response.get("Item")
        return Upload.model_validate(from_attrs(item)) if item else None

    def list_uploads(self, account_id: str, limit: int) -> list[Upload]:
        found: list[Upload] = []
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "FilterExpression": "#status <> :expired",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": {
                ":pk": {"S": account_pk(account_id)},
                ":prefix": {"S": "UPLOAD#"},
                ":expired": {"S": UploadStatus.EXPIRED.value},
            },
            "ScanIndexForward": False,
        }
        while len(found) < limit:
            response = self._db.query(**request)
            found += [Upload.model_validate(from_attrs(item)) for item in response.get("Items", [])]
            if "LastEvaluatedKey" not in response:
                break
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
        return found[:limit]

    def used_bytes(self, account_id: str) -> int:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), QUOTA_SK), ConsistentRead=True
        )
        return int(from_attrs(response.get("Item", {})).get("used_bytes", 0))

    # -- writes -----------------------------------------------------------------------------------

    def reserve(self, upload: Upload, quota_bytes: int, audit: AuditEntry) -> None:
        ops = [
            self._quota_op(upload.account_id, upload.reserved_bytes, 0, quota_bytes),
            put_op(
                self._table,
                account_pk(upload.account_id),
                upload_sk(upload.id),
                self._data(upload),
                "attribute_not_exists(pk)",
            ),
            audit_put(self._table, audit),
        ]
        ops += self._due_ops(upload)
        self._quota_transact(ops, quota_bytes)

    def settle(self, upload: Upload, size: int, content_type: str, now: datetime, quota_bytes: int,
               audit: AuditEntry | None = None) -> Upload | None:  # fmt: skip
        settled = upload.model_copy(
            update={
                "size_bytes": size,
                "reserved_bytes": size,
                "content_type": content_type,
                "status": UploadStatus.READY,
                "completed_at": now,
            }
        )
        ops = [
            self._quota_op(upload.account_id, size - upload.reserved_bytes, size, quota_bytes),
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(account_pk(upload.account_id), upload_sk(upload.id)),
                    "UpdateExpression": "SET size_bytes = :size, reserved_bytes = :size, content_type = :type, "
                    "#status = :ready, completed_at = :now",
                    "ConditionExpression": "#status = :pending AND reserved_bytes = :reserved",
                    "ExpressionAttributeNames": {"#status": "status"},
                    "ExpressionAttributeValues": {
                        ":size": _n(size),
                        ":type": {"S": content_type},
                        ":ready": {"S": UploadStatus.READY.value},
                        ":pending": {"S": UploadStatus.PENDING.value},
                        ":now": {"S": settled.model_dump(mode="json")["completed_at"]},
                        ":reserved": _n(upload.reserved_bytes),
                    },
                }
            },
            *self._due_ops(settled),
            *([audit_put(self._table, audit)] if audit is not None else []),
        ]
        try:
            self._quota_transact(ops, quota_bytes)
        except ClientError as exc:
            if cancellation_codes(exc)[1:2] == ["ConditionalCheckFailed"]:
                return None
            raise
        return settled

    def release(self, upload: Upload) -> bool:
        return self._give_back(
            upload,
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": key(account_pk(upload.account_id), upload_sk(upload.id)),
                    "ConditionExpression": "#status = :pending",
                    "ExpressionAttributeNames": {"#status": "status"},
                    "ExpressionAttributeValues": {":pending": {"S": UploadStatus.PENDING.value}},
                }
            },
        )

    def expire(self, upload: Upload) -> bool:
        expired = upload.model_copy(update={"status": UploadStatus.EXPIRED, "reserved_bytes": 0})
        return self._give_back(
            upload,
            *self._due_ops(expired),
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(account_pk(upload.account_id), upload_sk(upload.id)),
                    "UpdateExpression": "SET #status = :expired, reserved_bytes = :zero",
                    "ConditionExpression": "#status = :was AND reserved_bytes = :reserved",
                    "ExpressionAttributeNames": {"#status": "status"},
                    "ExpressionAttributeValues": {
                        ":expired": {"S": UploadStatus.EXPIRED.value},
                        ":was": {"S": upload.status.value},
                        ":zero": _n(0),
                        ":reserved": _n(upload.reserved_bytes),
                    },
                }
            },
        )

    def purge(self, upload: Upload) -> bool:
        try:
            self._db.delete_item(
                TableName=self._table,
                Key=key(account_pk(upload.account_id), upload_sk(upload.id)),
                ConditionExpression="#status = :expired",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={":expired": {"S": UploadStatus.EXPIRED.value}},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        self._forget_hits(upload)
        return True

    def update(self, upload: Upload, audit: AuditEntry) -> None:
        values: dict[str, Any] = {":name": {"S": upload.filename}, ":expired": {"S": UploadStatus.EXPIRED.value}}
        expression = "SET filename = :name"
        if upload.expires_at is None:
            expression += " REMOVE expires_at"
        else:
            expression += ", expires_at = :expires"
            values[":expires"] = {"S": upload.model_dump(mode="json")["expires_at"]}
        op = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(upload.account_id), upload_sk(upload.id)),
                "UpdateExpression": expression,
                "ConditionExpression": "attribute_exists(pk) AND #status <> :expired",
                "ExpressionAttributeNames": {"#status": "status"},
                "ExpressionAttributeValues": values,
            }
        }
        ops = [op, audit_put(self._table, audit), *self._due_ops(upload)]
        transact(self._db, ops, missing=f"upload {upload.id} not found",
                 conflict=f"upload {upload.id} changed concurrently; retry")  # fmt: skip

    def delete(self, upload: Upload, audit: AuditEntry) -> None:
        op = {
            "Delete": {
                "TableName": self._table,
                "Key": key(account_pk(upload.account_id), upload_sk(upload.id)),
                "ConditionExpression": "attribute_exists(pk) AND reserved_bytes = :reserved AND #status = :status",
                "ExpressionAttributeNames": {"#status": "status"},
                "ExpressionAttributeValues": {
                    ":reserved": _n(upload.reserved_bytes),
                    ":status": {"S": upload.status.value},
                },
            }
        }
        used = upload.size_bytes if upload.status is UploadStatus.READY else 0
        ops = [op, self._quota_op(upload.account_id, -upload.reserved_bytes, -used), audit_put(self._table, audit)]
        transact(self._db, ops, missing=f"upload {upload.id} not found",
                 conflict=f"upload {upload.id} changed concurrently; retry")  # fmt: skip
        self._forget_hits(upload)

    def record_hit(self, upload: Upload, *, human: bool, reason: str | None, ip: str | None,
                   user_agent: str | None, at: datetime) -> None:  # fmt: skip
        counter = "download_count" if human else "scanner_count"
        hit = {"upload_id": upload.id, "human": human, "reason": reason, "ip": ip,
               "user_agent": (user_agent or "")[:512] or None, "at": _stamp(at)}  # fmt: skip
        sk = f"UPLOADHIT#{upload.id}#{_stamp(at)}#{secrets.token_hex(4)}"
        ops = [
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(account_pk(upload.account_id), upload_sk(upload.id)),
                    "UpdateExpression": f"ADD {counter} :one",
                    "ConditionExpression": "attribute_exists(pk)",
                    "ExpressionAttributeValues": {":one": _n(1)},
                }
            },
            put_op(self._table, account_pk(upload.account_id), sk, hit),
        ]
        transact(self._db, ops, missing=f"upload {upload.id} not found")

    def hits(self, account_id: str, upload_id: str) -> list[dict[str, Any]]:
        """The hits recorded on one upload's hosted link, oldest first (for tests and support)."""
        response = self._db.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={
                ":pk": {"S": account_pk(account_id)},
                ":prefix": {"S": f"UPLOADHIT#{upload_id}#"},
            },
        )
        return [from_attrs(item) for item in response.get("Items", [])]

    def _forget_hits(self, upload: Upload) -> None:
        """A deleted or purged upload's hit records go with it."""
        pk = account_pk(upload.account_id)
        keys = [(self._table, key(pk, hit_sk)) for hit_sk in self._hit_keys(upload)]
        if keys:
            batch_delete(self._db, keys)

    def _hit_keys(self, upload: Upload) -> list[str]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": account_pk(upload.account_id)},
                ":prefix": {"S": f"UPLOADHIT#{upload.id}#"},
            },
            "ProjectionExpression": "sk",
        }
        found: list[str] = []
        while True:
            response = self._db.query(**request)
            found += [item["sk"]["S"] for item in response.get("Items", [])]
            if "LastEvaluatedKey" not in response:
                return found
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    # -- the sweep's index ------------------------------------------------------------------------

    def due(self, now: datetime, limit: int) -> list[tuple[str, str, str]]:
        response = self._db.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND sk <= :now",
            ExpressionAttributeValues={":pk": {"S": DUE_PK}, ":now": {"S": _stamp(now) + "~"}},
            Limit=limit,
            ConsistentRead=True,
        )
        found = []
        for item in response.get("Items", []):
            sk = item["sk"]["S"]
            _, account_id, upload_id = sk.split("#", 2)
            found.append((account_id, upload_id, sk))
        return found

    def clear_due(self, due_key: str) -> None:
        self._db.delete_item(TableName=self._table, Key=key(DUE_PK, due_key))

    # -- helpers ----------------------------------------------------------------------------------

    def _data(self, upload: Upload) -> dict[str, Any]:
        return upload.model_dump(mode="json")

    def _due_ops(self, upload: Upload) -> list[dict[str, Any]]:
        due_at = upload.due_at()
        if due_at is None:
            return []
        sk = f"{_stamp(due_at)}#{upload.account_id}#{upload.id}"
        return [put_op(self._table, DUE_PK, sk, {})]

    def _quota_op(self, account_id: str, delta: int, used: int, quota_bytes: int | None = None) -> dict[str, Any]:
        """ADD delta to committed_bytes and used to used_bytes; growing, only while within the quota."""
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": key(account_pk(account_id), QUOTA_SK),
            "UpdateExpression": "ADD committed_bytes :delta, used_bytes :used",
            "ExpressionAttributeValues": {":delta": _n(delta), ":used": _n(used)},
        }
        if delta > 0 and quota_bytes is not None:
            update["ConditionExpression"] = "attribute_not_exists(committed_bytes) OR committed_bytes <= :room"
            update["ExpressionAttributeValues"][":room"] = _n(quota_bytes - delta)
        return {"Update": update}

    def _quota_transact(self, ops: list[dict[str, Any]], quota_bytes: int) -> None:
        """Concurrent creates meet on the one quota item: DynamoDB cancels a transaction that crosses
        another's (TransactionConflict), which is retried here a few times, then answered 409."""
        for attempt in range(CONFLICT_RETRIES):
            try:
                self._db.transact_write_items(TransactItems=ops)
                return
            except ClientError as exc:
                codes = cancellation_codes(exc)
                if codes[:1] == ["ConditionalCheckFailed"]:
                    raise Forbidden(
                        f"The uploads quota of {quota_bytes} bytes is reached (pending uploads included); "
                        "delete uploads or ask for a storage add-on.",
                        code=QUOTA_EXCEEDED,
                    ) from exc
                if "TransactionConflict" not in codes:
                    raise
                if attempt == CONFLICT_RETRIES - 1:
                    raise Conflict("The uploads quota changed concurrently; retry.") from exc
                time.sleep(random.uniform(0.01, 0.05) * (attempt + 1))

    def _give_back(self, upload: Upload, *ops: dict[str, Any]) -> bool:
        """Runs `ops` (the last one conditional on the upload) and gives its bytes back, in one transaction."""
        used = upload.size_bytes if upload.status is UploadStatus.READY else 0
        try:
            self._db.transact_write_items(
                TransactItems=[*ops, self._quota_op(upload.account_id, -upload.reserved_bytes, -used)]
            )
        except ClientError as exc:
            if "ConditionalCheckFailed" in cancellation_codes(exc):
                return False
            raise
        return True


class DynamoTrackingHosts:
    """The branded tracking host of the account's verified domains (the first by name whose tracking
    CNAME a check found), read from the domains' items without opening their sealed DKIM keys."""

    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def branded_host(self, account_id: str) -> str | None:
        response = self._db.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": {"S": account_pk(account_id)}, ":prefix": {"S": DOMAIN_PREFIX}},
        )
        for item in response.get("Items", []):
            data = from_attrs(item)
            fields = {name: value for name, value in data.items() if name in SendingDomain.model_fields}
            domain = SendingDomain.model_validate({**fields, "dkim_private_key": ""})  # the key is not needed
            if domain.verified and domain.branded_tracking_host:
                return domain.branded_tracking_host
        return None
