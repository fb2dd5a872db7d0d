"""The jobs table's shared layout and the lifecycle every long-running account job goes through.

    JOB#<account>  <KIND>#<id>              a job: its model's fields, purge_at (TTL) as its kind says;
                                            lease_until while an attempt holds it (take_lease)
    JOB#<account>  <KIND>#<id>#<part>...    an item of one job's own, e.g. a resend's count marker
    JOB#<account>  <KIND>_FP#<fingerprint>  the job an equivalent request runs as: job_id,
                                            active_until, purge_at (create_or_find)

The kinds in it: EXPORT (exports/store.py) and RESEND (webhook_resend/store.py). A kind names its
sort-key prefix, its model (a pydantic model with id, account_id and status) and when its items go;
JobTable gives it the lifecycle, every step a conditional write:

- create: a new job, unless its item exists;
- create_or_find: dedupe without a scan. The job is written together with its fingerprint item,
  on the condition that no live fingerprint item exists; else the job that item points at is
  returned while it runs. finish (or free_fingerprint) removes the item at the job's end, and
  `lifetime` bounds how long a job that never ended can hold it;
- move: one of a set of statuses -> another, with other attributes set in the same write;
- take_lease, release_lease, finish: one attempt at a time. Each take is the next `attempt`, held
  until `lease_until`; only the attempt holding the job may give the lease back or finish it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from botocore.exceptions import ClientError

from postline.shared.dynamo import cancellation_codes, conditional_failed, epoch, from_attrs, key, to_attrs, to_value
from postline.shared.ports import StoredJob

_CREATE_TRIES = 3  # create_or_find's rounds against fingerprint items that keep changing
_STATUS = {"#status": "status"}


J = TypeVar("J", bound=StoredJob)


@dataclass(frozen=True)
class JobKind(Generic[J]):
    """One kind of job in the table: its sort-key prefix, its model, and when TTL removes a job."""

    prefix: str  # EXPORT: sort keys EXPORT#<id> and EXPORT_FP#<fingerprint>
    model: type[J]
    purge_at: Callable[[J], datetime]

    def __post_init__(self) -> None:
        # Upper-case words joined by _, never ending in _FP: no kind's keys can be another kind's.
        if not re.fullmatch(r"[A-Z]+(_[A-Z]+)*", self.prefix) or self.prefix.endswith("_FP"):
            raise ValueError(f"job kind prefix {self.prefix!r}: upper-case words joined by _, not ending in _FP")


def _pk(account_id: str) -> str:
    return f"JOB#{account_id}"


def _in(statuses: Collection[str], name: str) -> tuple[str, dict[str, Any]]:
    """`#status IN (...)` over `statuses`, and its values (placeholders :<name>0, :<name>1, ...)."""
    if not statuses:
        raise ValueError("a status condition needs at least one status")
    values = {f":{name}{n}": {"S": str(status)} for n, status in enumerate(sorted(set(map(str, statuses))))}
    return f"#status IN ({', '.join(values)})", values


class JobTable(Generic[J]):
    """The jobs of one kind in the jobs table."""

    def __init__(self, client: Any, table: str, kind: JobKind[J]) -> None:
        self._db = client
        self._table = table
        self._kind = kind

    # -- keys and items ------------------------------------------------------------------------------

    def key(self, account_id: str, job_id: str, *parts: str) -> dict[str, Any]:
        """The job's item; with `parts`, an item of the job's own: <KIND>#<id>#<part>#<part>..."""
        return key(_pk(account_id), "#".join((self._kind.prefix, job_id, *parts)))

    def _fingerprint_key(self, account_id: str, fingerprint: str) -> dict[str, Any]:
        return key(_pk(account_id), f"{self._kind.prefix}_FP#{fingerprint}")

    def item(self, job: J) -> dict[str, Any]:
        """The whole stored item of `job`: its key, its fields (None ones left out) and purge_at."""
        return {
            **self.key(job.account_id, job.id),
            **to_attrs(job.model_dump(mode="json")),
            "purge_at": epoch(self._kind.purge_at(job)),
        }

    # -- reading and creating ------------------------------------------------------------------------

    def get(self, account_id: str, job_id: str) -> J | None:
        item = self._db.get_item(TableName=self._table, Key=self.key(account_id, job_id), ConsistentRead=True).get(
            "Item"
        )
        return self._kind.model.model_validate(from_attrs(item)) if item else None

    def create(self, job: J) -> bool:
        """Stores a new job; False, writing nothing, when its item exists already."""
        return self._put(self.item(job), "attribute_not_exists(pk)")

    def create_or_find(
        self, job: J, fingerprint: str, now: datetime, *, running: Collection[str], lifetime: timedelta
    ) -> J:
        """Stores `job` unless one of the same fingerprint is still in a `running` status; returns
        the one that runs. A fingerprint item older than `lifetime` no longer counts."""
        for _ in range(_CREATE_TRIES):
            try:
                self._db.transact_write_items(
                    TransactItems=[
                        {
                            "Put": {
                                "TableName": self._table,
                                "Item": {
                                    **self._fingerprint_key(job.account_id, fingerprint),
                                    "job_id": {"S": job.id},
                                    "active_until": epoch(now + lifetime),
                                    "purge_at": epoch(now + lifetime),
                                },
                                "ConditionExpression": "attribute_not_exists(pk) OR active_until < :now",
                                "ExpressionAttributeValues": {":now": epoch(now)},
                            }
                        },
                        {
                            "Put": {
                                "TableName": self._table,
                                "Item": self.item(job),
                                "ConditionExpression": "attribute_not_exists(pk)",
                            }
                        },
                    ]
                )
                return job
            except ClientError as error:
                if cancellation_codes(error)[:1] != ["ConditionalCheckFailed"]:
                    raise
            found = self._running(job.account_id, fingerprint, running)
            if found is not None:
                return found
        raise RuntimeError(f"job {self._kind.prefix}#{job.id}: the fingerprint item kept changing")

    def _running(self, account_id: str, fingerprint: str, running: Collection[str]) -> J | None:
        """The job the fingerprint points at if it still runs; else clears the stale pointer."""
        pointer = self._db.get_item(
            TableName=self._table, Key=self._fingerprint_key(account_id, fingerprint), ConsistentRead=True
        ).get("Item")
        if pointer is None:
            return None
        job = self.get(account_id, pointer["job_id"]["S"])
        if job is not None and job.status in running:
            return job
        self.free_fingerprint(account_id, fingerprint, pointer["job_id"]["S"])  # its end did not get to it
        return None

    def free_fingerprint(self, account_id: str, fingerprint: str, job_id: str) -> None:
        """Removes the fingerprint item if it still points at `job_id`."""
        try:
            self._db.delete_item(
                TableName=self._table,
                Key=self._fingerprint_key(account_id, fingerprint),
                ConditionExpression="job_id = :job",
                ExpressionAttributeValues={":job": {"S": job_id}},
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise  # else it already points at a newer job, or is gone

    # -- status moves and leases ---------------------------------------------------------------------

    def move(
        self,
        job: J,
        from_statuses: Collection[str],
        to: str,
        *,
        updates: Mapping[str, Any] | None = None,
        condition: str = "",
        condition_values: Mapping[str, Any] | None = None,
        together: Sequence[dict[str, Any]] = (),
    ) -> J | None:
        """From one of `from_statuses` (and `condition`, when given: an expression comparing the
        item's attributes by name, none of DynamoDB's reserved words, with `condition_values`'
        plain values as its :placeholders) to `to`, setting `updates` (attribute name -> plain
        value) in the same write. The job as stored after; None when it was not in such a status,
        or is not there. `together`: transaction items written with the move or not at all (e.g.
        its audit entry, audit.store.audit_put); the job is then read back (a transaction returns
        no item)."""
        allowed, values = _in(from_statuses, "from")
        for placeholder, value in (condition_values or {}).items():
            values[placeholder] = to_value(value)
        names = dict(_STATUS)
        assignments = ["#status = :to"]
        values[":to"] = {"S": str(to)}
        for n, (name, value) in enumerate((updates or {}).items()):
            names[f"#u{n}"], values[f":u{n}"] = name, to_value(value)
            assignments.append(f"#u{n} = :u{n}")
        expression = "SET " + ", ".join(assignments)
        condition = f"({allowed}) AND ({condition})" if condition else allowed
        if together:
            return self._update_with(job, expression, condition, names, values, together)
        return self._update(job, expression, condition, names, values)

    def take_lease(
        self, job: J, now: datetime, duration: timedelta, *, waiting: Collection[str], held: str
    ) -> J | None:
        """A job in one of the `waiting` statuses, or `held` under a lease that ran out, becomes
        `held` by the next attempt (`attempt` + 1) until now + duration: the job as stored after.
        None while another attempt holds a live lease, or when the job is in any other status.
        A kind that leases has `attempt: int = 0` in its model: release_lease and finish take it."""
        is_waiting, values = _in(waiting, "waiting")
        return self._update(
            job,
            "SET #status = :held, attempt = if_not_exists(attempt, :zero) + :one, lease_until = :until",
            f"{is_waiting} OR (#status = :held AND lease_until < :now)",
            _STATUS,
            {
                **values,
                ":held": {"S": str(held)},
                ":zero": {"N": "0"},
                ":one": {"N": "1"},
                ":until": epoch(now + duration),
                ":now": epoch(now),
            },
        )

    def release_lease(self, job: J, attempt: int, *, held: str) -> bool:
        """Ends the lease of `attempt` at once (the job stays `held`, claimable by the next
        take_lease); False when that attempt no longer holds the job."""
        released = self._update(
            job,
            "SET lease_until = :zero",
            "#status = :held AND attempt = :attempt",
            _STATUS,
            {":zero": {"N": "0"}, ":held": {"S": str(held)}, ":attempt": {"N": str(attempt)}},
        )
        return released is not None

    def finish(self, job: J, attempt: int, *, held: str, fingerprint: str | None = None) -> bool:
        """Stores the whole job as `attempt` leaves it (say, completed or failed), which drops the
        lease, if that attempt still holds it; then frees `fingerprint`. False when it does not."""
        stored = self._put(
            self.item(job),
            "#status = :held AND attempt = :attempt",
            names=_STATUS,
            values={":held": {"S": str(held)}, ":attempt": {"N": str(attempt)}},
        )
        if stored and fingerprint is not None:
            self.free_fingerprint(job.account_id, fingerprint, job.id)
        return stored

    # -- the conditional writes ----------------------------------------------------------------------

    def _put(
        self,
        item: dict[str, Any],
        condition: str,
        *,
        names: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
    ) -> bool:
        try:
            self._db.put_item(
                TableName=self._table,
                Item=item,
                ConditionExpression=condition,
                **({"ExpressionAttributeNames": names} if names else {}),
                **({"ExpressionAttributeValues": values} if values else {}),
            )
        except ClientError as error:
            if conditional_failed(error):
                return False
            raise
        return True

    def _update_with(
        self,
        job: J,
        update: str,
        condition: str,
        names: dict[str, str],
        values: dict[str, Any],
        together: Sequence[dict[str, Any]],
    ) -> J | None:
        operation = {
            "Update": {
                "TableName": self._table,
                "Key": self.key(job.account_id, job.id),
                "UpdateExpression": update,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
            }
        }
        try:
            self._db.transact_write_items(TransactItems=[operation, *together])
        except ClientError as error:
            if cancellation_codes(error)[:1] == ["ConditionalCheckFailed"]:
                return None
            raise
        return self.get(job.account_id, job.id)

    def _update(self, job: J, update: str, condition: str, names: dict[str, str], values: dict[str, Any]) -> J | None:
        try:
            response = self._db.update_item(
                TableName=self._table,
                Key=self.key(job.account_id, job.id),
                UpdateExpression=update,
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if conditional_failed(error):
                return None
            raise
        return self._kind.model.model_validate(from_attrs(response["Attributes"]))
