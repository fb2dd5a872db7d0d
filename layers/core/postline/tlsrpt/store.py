"""TLS-RPT counts and reports on the counters table.

- `TLSRPT#<day>#<domain>` / `S#<policy key>#<result>#<mx>#<ip>`: one item per distinct outcome of the
  domain-day, its `sessions` an atomic ADD of the sessions a relay process counted since its last
  flush (tlsrpt/service.py TlsSessionRecorder: a few writes a minute, not one per session).
  Expires 10 days after the day: the daily run retries for 3 days.
- `TLSRPT#<day>#<domain>` / `REPORT`: the report, built once (conditional put) and never rebuilt; the
  rua delivered to (a string set), the attempts, and a lease, so two runners never send it together.
- `TLSRPT_DAY#<day>` / `<domain>`: the day's domains, written once per domain, day and process.
"""

from __future__ import annotations

import threading
from datetime import date, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.delivery.tls_sessions import AppliedPolicy, PolicyType, ResultType, TlsSession
from postline.shared.dynamo import conditional_failed, from_attrs, key
from postline.tlsrpt.domain import Tally, day_bounds
from postline.tlsrpt.ports import StoredReport

SESSIONS_KEPT_DAYS = 10
REPORTS_KEPT_DAYS = 40
_REPORT_SK = "REPORT"
_INDEX_MEMORY = 100_000  # (day, domain) pairs this process knows it indexed


def _pk(day: date, domain: str) -> str:
    return f"TLSRPT#{day.isoformat()}#{domain}"


def _expires(day: date, days: int) -> dict[str, str]:
    return {"N": str(int((day_bounds(day)[1] + timedelta(days=days)).timestamp()))}


class DynamoTlsReports:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table
        self._indexed: set[tuple[date, str]] = set()
        self._lock = threading.Lock()

    def record(self, session: TlsSession, day: date, count: int = 1) -> None:
        policy = session.policy
        result = session.failure.value if session.failure else "-"
        sk = f"S#{policy.key}#{result}#{session.mx_host}#{session.receiving_ip}"
        self._db.update_item(
            TableName=self._table,
            Key=key(_pk(day, session.policy_domain), sk),
            UpdateExpression=(
                "ADD sessions :one SET policy_type = :type, policy_lines = :lines, policy_mx = :mx,"
                " outcome = :result, mx = :host, ip = :ip, expires_at = if_not_exists(expires_at, :ttl)"
            ),
            ExpressionAttributeValues={
                ":one": {"N": str(count)},
                ":type": {"S": policy.type.value},
                ":lines": {"L": [{"S": line} for line in policy.lines]},
                ":mx": {"L": [{"S": mx} for mx in policy.mx]},
                ":result": {"S": result},
                ":host": {"S": session.mx_host},
                ":ip": {"S": session.receiving_ip},
                ":ttl": _expires(day, SESSIONS_KEPT_DAYS),
            },
        )
        marker = (day, session.policy_domain)
        with self._lock:
            if marker in self._indexed:
                return
        self._db.put_item(
            TableName=self._table,
            Item={
                **key(f"TLSRPT_DAY#{day.isoformat()}", session.policy_domain),
                "expires_at": _expires(day, SESSIONS_KEPT_DAYS),
            },
        )
        with self._lock:
            if len(self._indexed) >= _INDEX_MEMORY:
                self._indexed.clear()
            self._indexed.add(marker)

    def domains(self, day: date) -> list[str]:
        return [item["sk"] for item in self._query(f"TLSRPT_DAY#{day.isoformat()}")]

    def tallies(self, day: date, domain: str) -> list[Tally]:
        tallies = []
        for item in self._query(_pk(day, domain), "S#"):
            policy = AppliedPolicy(
                PolicyType(item["policy_type"]), tuple(item.get("policy_lines", [])), tuple(item.get("policy_mx", []))
            )
            outcome = item["outcome"]
            failure = None if outcome == "-" else ResultType(outcome)
            tallies.append(Tally(policy, failure, item.get("mx", ""), item.get("ip", ""), int(item["sessions"])))
        return tallies

    def report(self, day: date, domain: str) -> StoredReport | None:
        response = self._db.get_item(TableName=self._table, Key=key(_pk(day, domain), _REPORT_SK), ConsistentRead=True)
        raw = response.get("Item")
        if raw is None:
            return None
        item = from_attrs(raw)
        return StoredReport(
            report_id=item["report_id"],
            body=bytes(item["body"]),
            rua=tuple(item.get("rua", [])),
            sent=set(item.get("sent", [])),
            attempts=int(item.get("attempts", 0)),
            last_error=item.get("last_error", ""),
        )

    def create_report(self, day: date, domain: str, report: StoredReport) -> StoredReport:
        try:
            self._db.put_item(
                TableName=self._table,
                Item={
                    **key(_pk(day, domain), _REPORT_SK),
                    "report_id": {"S": report.report_id},
                    "body": {"B": report.body},
                    "rua": {"L": [{"S": uri} for uri in report.rua]},
                    "attempts": {"N": "0"},
                    "expires_at": _expires(day, REPORTS_KEPT_DAYS),
                },
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ClientError as exc:
            if not conditional_failed(exc):
                raise
            existing = self.report(day, domain)
            assert existing is not None  # it was there a moment ago, and only expires after 40 days
            return existing
        return report

    def take_lease(self, day: date, domain: str, owner: str, *, now: int, until: int) -> bool:
        try:
            self._db.update_item(
                TableName=self._table,
                Key=key(_pk(day, domain), _REPORT_SK),
                UpdateExpression="SET lease_owner = :owner, lease_until = :until",
                ConditionExpression=(
                    "attribute_exists(pk) AND (attribute_not_exists(lease_until) OR lease_until <= :now)"
                ),
                ExpressionAttributeValues={
                    ":owner": {"S": owner},
                    ":until": {"N": str(until)},
                    ":now": {"N": str(now)},
                },
            )
        except ClientError as exc:
            if not conditional_failed(exc):
                raise
            return False
        return True

    def settle(self, day: date, domain: str, owner: str, *, sent: set[str], error: str) -> None:
        adds: list[str] = []
        values: dict[str, Any] = {}
        if sent:
            adds.append("sent :sent")
            values[":sent"] = {"SS": sorted(sent)}
        if error:
            adds.append("attempts :one")
            values[":one"] = {"N": "1"}
        update = ("ADD " + ", ".join(adds) + " " if adds else "") + "SET last_error = :error"
        values[":error"] = {"S": error}
        request: dict[str, Any] = {"TableName": self._table, "Key": key(_pk(day, domain), _REPORT_SK)}
        try:
            self._db.update_item(
                **request,
                UpdateExpression=update + " REMOVE lease_owner, lease_until",
                ConditionExpression="lease_owner = :owner",
                ExpressionAttributeValues={**values, ":owner": {"S": owner}},
            )
        except ClientError as exc:
            if not conditional_failed(exc):
                raise
            # The lease ran out and another runner holds it now: what was sent still counts.
            self._db.update_item(**request, UpdateExpression=update, ExpressionAttributeValues=values)

    def _query(self, pk: str, prefix: str | None = None) -> list[dict[str, Any]]:
        condition = "pk = :pk" + (" AND begins_with(sk, :prefix)" if prefix else "")
        values: dict[str, Any] = {":pk": {"S": pk}}
        if prefix:
            values[":prefix"] = {"S": prefix}
        items: list[dict[str, Any]] = []
        for page in self._db.get_paginator("query").paginate(
            TableName=self._table, KeyConditionExpression=condition, ExpressionAttributeValues=values
        ):
            items.extend(from_attrs(raw) for raw in page["Items"])
        return items
