"""Reputation snapshots in the counters table (metrics/reputation.py says what they hold):

    REP#<account>   <mode>   `claimed_at` (the last evaluation's start: the throttle), `scores` (JSON:
                             domains, pools, ips -> 0-100 or null), `danger` (JSON list of
                             `domain:<name>` / `pool:<id>` in danger), `version`, `expires_at` (30
                             days after the last evaluation: then no mail is left in the window)

The domain and pool routes read one item per request; the roll-up consumer writes it (reputation_
service.py). A save that raises alerts writes their audit entries in the same transaction, so a
crossing is audited exactly when the snapshot that records it is written.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.metrics.reputation import Snapshot
from postline.shared.dynamo import cancellation_codes, conditional_failed, key

# (account, mode) -> when its next claim can succeed, as this instance last learned: claims only
# move later, so a claim before then would be refused (and still cost a write unit).
_NEXT_CLAIM: dict[tuple[str, str], datetime] = {}
_REMEMBERED = 100_000


def reputation_key(account_id: str, mode: str) -> dict[str, Any]:
    return key(f"REP#{account_id}", mode)


class DynamoReputations:
    def __init__(self, client: Any, counters_table: str, resources_table: str) -> None:
        self._db = client
        self._table = counters_table
        self._resources = resources_table  # where audit entries live

    def claim(self, account_id: str, mode: str, now: datetime, every: timedelta) -> bool:
        """Whether this caller evaluates the account now: true at most once per `every`. The
        instance remembers when the account's next claim can succeed (from its own claim, or the
        one a refused claim returns), and makes no write before then."""
        due = _NEXT_CLAIM.get((account_id, mode))
        if due is not None and now < due:
            return False
        if len(_NEXT_CLAIM) >= _REMEMBERED:
            _NEXT_CLAIM.clear()
        try:
            self._db.update_item(
                TableName=self._table,
                Key=reputation_key(account_id, mode),
                UpdateExpression="SET claimed_at = :now",
                ConditionExpression="attribute_not_exists(claimed_at) OR claimed_at <= :before",
                ExpressionAttributeValues={
                    ":now": {"S": _stamp(now)},
                    ":before": {"S": _stamp(now - every)},
                },
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if conditional_failed(error):
                held = error.response.get("Item", {}).get("claimed_at", {}).get("S")
                if held:
                    _NEXT_CLAIM[(account_id, mode)] = datetime.fromisoformat(held) + every
                return False
            raise
        _NEXT_CLAIM[(account_id, mode)] = now + every
        return True

    def snapshot(self, account_id: str, mode: str) -> Snapshot | None:
        item = self._db.get_item(TableName=self._table, Key=reputation_key(account_id, mode), ConsistentRead=True)
        found = item.get("Item")
        if found is None or "scores" not in found:
            return None
        scores = json.loads(found["scores"]["S"])
        return Snapshot(
            domains=scores.get("domains", {}),
            pools=scores.get("pools", {}),
            ips=scores.get("ips", {}),
            danger=set(json.loads(found.get("danger", {}).get("S", "[]"))),
            version=int(found.get("version", {}).get("N", "0")),
        )

    def save(
        self,
        account_id: str,
        mode: str,
        snapshot: Snapshot,
        *,
        read_version: int,
        audits: list[AuditEntry],
        expires_at: int | None = None,
    ) -> bool:
        """Writes the snapshot (version read_version + 1) and the audit entries in one transaction;
        False when another evaluation saved since `read_version` was read (nothing is written).
        expires_at: the item's TTL (an account that stops sending has no window left to score)."""
        values = {
            ":scores": {"S": json.dumps({"domains": snapshot.domains, "pools": snapshot.pools, "ips": snapshot.ips})},
            ":danger": {"S": json.dumps(sorted(snapshot.danger))},
            ":next": {"N": str(read_version + 1)},
        }
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": reputation_key(account_id, mode),
            "UpdateExpression": "SET scores = :scores, danger = :danger, version = :next",
            "ExpressionAttributeValues": values,
        }
        if expires_at is not None:
            update["UpdateExpression"] += ", expires_at = :ttl"
            values[":ttl"] = {"N": str(expires_at)}
        if read_version:
            update["ConditionExpression"] = "version = :read"
            values[":read"] = {"N": str(read_version)}
        else:
            update["ConditionExpression"] = "attribute_not_exists(version)"
        try:
            self._db.transact_write_items(
                TransactItems=[{"Update": update}, *(audit_put(self._resources, entry) for entry in audits)]
            )
        except ClientError as error:
            if "ConditionalCheckFailed" in cancellation_codes(error):
                return False
            raise
        return True

    # -- what the routes read (domains/ports.py, ip_pools/ports.py Reputations) -----------------------

    def domain_scores(self, account_id: str, mode: str) -> dict[str, int | None]:
        found = self.snapshot(account_id, mode)
        return found.domains if found is not None else {}

    def pool_scores(self, account_id: str, mode: str) -> tuple[dict[str, int | None], dict[str, int | None]]:
        """(pool id -> score, address -> score) of the account's own pools and addresses."""
        found = self.snapshot(account_id, mode)
        return (found.pools, found.ips) if found is not None else ({}, {})


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()
