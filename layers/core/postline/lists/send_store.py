"""List send jobs in the jobs table (its layout and the jobs' lifecycle: shared/jobs.py).

    JOB#<account>  LIST_SEND#<id>           a list send with its cursor and counts; purge_at (TTL) 30
                                            days after it ended
    JOB#<account>  LIST_SEND#<id>#REQUEST   what it sends (content, vars): written with the job, read
                                            once per run; purge_at 30 days after its send time
    JOB#<account>  LIST_SEND#<id>#HANDING   the bounds of the last pages a run handed out (a list
                                            sent by page tasks), written before the job's record of
                                            them; purge_at 60 days after its send time
    JOB#<account>  LIST_SEND#<id>#PAGE#<n>  a page task's page counted (a list sent by page tasks):
                                            written with the ADD of its counts to the job, once;
                                            purge_at 60 days after its send time

The worker claims the job under a lease; each page's checkpoint, and the end, is written only by the
attempt holding it (the whole job, conditional on status sending and that attempt).

Cancelling (DELETE /v3/lists/{id}/sends/{send_id}) is a conditional status move as well: a job no
attempt holds (pending, scheduled, or sending between two runs: no live lease) becomes cancelled at
once; one under a live lease becomes cancelling, which refuses that attempt's next checkpoint, and
the attempt then stores its counts as cancelled (end_cancelled, conditional on cancelling and its
attempt). A cancelling job whose attempt died is ended by the next delivery once the lease ran out.
A list sent by page tasks (lists/send_service.py) keeps its counts apart from its run's writes: the
run records the pages it hands out (hand_out: their bounds in the HANDING item, then handed_out,
handing_from, cursor and read_all on the job, a SET of those fields only, conditional on its
attempt: the job item stays small, so a page's count is one write unit), and each page task adds
its page's counts (ADD) in one transaction with its page's marker item, which must be new: a
redone page counts nothing twice. Its first failures are appended only while the job's list holds
fewer than MAX_REPORTED_FAILURES (else the page is counted without them), so page tasks side by side
that each read the list short keep it, and the job item every count rewrites, bounded. Its end
(done, failed, cancelled) is a status move that leaves the counts as stored.

Both cancel moves write the call's audit entry (resources table) in the same transaction, and only
while the job's counts are those the entry states: a cancel that fails records nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.lists.sends import (
    MAX_REPORTED_FAILURES,
    FailedMember,
    ListSend,
    ListSendStatus,
    PageRange,
    PageResult,
    outcome_counts,
)
from postline.shared.dynamo import cancellation_codes, conditional_failed, epoch, from_attrs, to_attrs
from postline.shared.jobs import JobKind, JobTable

JOB_PURGE_AFTER = timedelta(days=30)
REQUEST = "REQUEST"
PAGE = "PAGE"
HANDING = "HANDING"


def _purge_at(job: ListSend) -> datetime:
    return (job.completed_at or job.created_at) + JOB_PURGE_AFTER


LIST_SENDS = JobKind(prefix="LIST_SEND", model=ListSend, purge_at=_purge_at)
# A cancel's audit entry states the counts it read: the move holds only while they are still stored.
_COUNTS = "members = :members AND accepted = :accepted"


def _counts(job: ListSend) -> dict[str, int]:
    return {":members": job.members, ":accepted": job.accepted}


class DynamoListSends:
    def __init__(self, client: Any, table: str, audit_table: str = "") -> None:
        """audit_table: the resources table, where a cancel records its audit entry (the API's
        store has it; the worker's, which cancels nothing, need not)."""
        self._client = client
        self._table = table
        self._jobs = JobTable(client, table, LIST_SENDS)
        self._audit_table = audit_table

    def create(self, job: ListSend) -> bool:
        """Stores the job and its request in one transaction; False, writing nothing, when a job of
        that id exists (a retry of a keyed send)."""
        request = {
            **self._jobs.key(job.account_id, job.id, REQUEST),
            **to_attrs({"request": job.request, "vars": job.vars}),
            "purge_at": epoch((job.send_at or job.created_at) + JOB_PURGE_AFTER),
        }
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {"Put": {"TableName": self._table, "Item": self._jobs.item(job),
                             "ConditionExpression": "attribute_not_exists(pk)"}},
                    {"Put": {"TableName": self._table, "Item": request}},
                ]
            )  # fmt: skip
        except ClientError as error:
            if cancellation_codes(error)[:1] == ["ConditionalCheckFailed"]:
                return False
            raise
        return True

    def with_request(self, job: ListSend) -> ListSend:
        """`job` with the request it sends, read from its own item (once per run)."""
        item = self._client.get_item(
            TableName=self._table, Key=self._jobs.key(job.account_id, job.id, REQUEST), ConsistentRead=True
        ).get("Item")
        if item is None:
            if job.request:  # stored before the request had an item of its own: the job item holds it
                return job
            raise LookupError(f"list send {job.id} has no stored request")
        stored = from_attrs(item)
        return job.model_copy(update={"request": stored["request"], "vars": stored.get("vars", {})})

    def get(self, account_id: str, send_id: str) -> ListSend | None:
        return self._jobs.get(account_id, send_id)

    def claim(self, job: ListSend, now: datetime, lease: timedelta) -> ListSend | None:
        """pending, or sending under a lease that ran out -> sending by the next attempt."""
        return self._jobs.take_lease(job, now, lease, waiting={ListSendStatus.PENDING}, held=ListSendStatus.SENDING)

    def save(self, job: ListSend) -> bool:
        """Stores the job as its attempt leaves it (a page's checkpoint, or its end) if that attempt
        still holds it; False when it lost the job."""
        return self._jobs.finish(job, job.attempt, held=ListSendStatus.SENDING)

    def release(self, job: ListSend) -> bool:
        """Gives the lease back; False when this attempt no longer holds the job (lost, or cancelling)."""
        return self._jobs.release_lease(job, job.attempt, held=ListSendStatus.SENDING)

    def cancel_unheld(self, job: ListSend, now: datetime, audit: AuditEntry | None) -> ListSend | None:
        """pending, sending or cancelling with no live lease -> cancelled, with `audit` (None: the
        worker ending a cancel the API recorded already): the job as stored after; None (nothing
        written) when it is in another status, an attempt holds it, or its counts moved since `job`
        was read. `job` as read: a cancelling one's cancel_requested_at is kept."""
        ended_at = now.isoformat()
        return self._jobs.move(
            job,
            {ListSendStatus.PENDING, ListSendStatus.SENDING, ListSendStatus.CANCELLING},
            ListSendStatus.CANCELLED,
            updates={
                "completed_at": ended_at,
                "cancel_requested_at": (job.cancel_requested_at or now).isoformat(),
                "purge_at": int((now + JOB_PURGE_AFTER).timestamp()),  # as the item()'s own
            },
            condition=f"(attribute_not_exists(lease_until) OR lease_until < :now) AND {_COUNTS}",
            condition_values={":now": int(now.timestamp()), **_counts(job)},
            together=[self._audit_put(audit)] if audit is not None else (),
        )

    def request_cancel(self, job: ListSend, now: datetime, audit: AuditEntry) -> ListSend | None:
        """sending under a live lease -> cancelling (the attempt stops at its next checkpoint), with
        `audit`; None (nothing written) as cancel_unheld."""
        return self._jobs.move(
            job,
            {ListSendStatus.SENDING},
            ListSendStatus.CANCELLING,
            updates={"cancel_requested_at": now.isoformat()},
            condition=f"lease_until >= :now AND {_COUNTS}",
            condition_values={":now": int(now.timestamp()), **_counts(job)},
            together=[self._audit_put(audit)],
        )

    def _audit_put(self, audit: AuditEntry) -> dict[str, Any]:
        if not self._audit_table:
            raise RuntimeError("this list send store was built without the audit table: it cannot cancel")
        return audit_put(self._audit_table, audit)

    def end_cancelled(self, job: ListSend) -> bool:
        """Stores the job (status cancelled, its attempt's counts) if it is cancelling under that attempt."""
        return self._jobs.finish(job, job.attempt, held=ListSendStatus.CANCELLING)

    def fail_pending(self, job: ListSend) -> None:
        """A job whose queue message could not be sent: failed, unless a worker took it meanwhile."""
        self._jobs.move(job, {ListSendStatus.PENDING}, ListSendStatus.FAILED, updates={
            "error_message": job.error_message, "completed_at": job.completed_at,
        })  # fmt: skip

    # -- a list sent by page tasks ---------------------------------------------------------------------

    def hand_out(self, job: ListSend, pages: list[PageRange], *, cursor: str | None, read_all: bool) -> ListSend | None:
        # The bounds first: a run that dies before the job's record leaves them unread (the next
        # run reads the same pages again and writes them over); after it, the next run finds them.
        try:  # never over a newer attempt's (a run that lost the job, late)
            self._client.put_item(
                TableName=self._table,
                Item={
                    **self._jobs.key(job.account_id, job.id, HANDING),
                    **to_attrs({"pages": [page.model_dump(mode="json") for page in pages], "attempt": job.attempt}),
                    "purge_at": epoch((job.send_at or job.created_at) + 2 * JOB_PURGE_AFTER),
                },
                ConditionExpression="attribute_not_exists(pk) OR attempt <= :attempt",
                ExpressionAttributeValues={":attempt": {"N": str(job.attempt)}},
            )
        except ClientError as error:
            if conditional_failed(error):
                return None
            raise
        updates: dict[str, Any] = {
            "handed_out": (job.handed_out or 0) + len(pages),  # written only by the attempt holding it
            "handing_from": pages[0].index,
            "read_all": read_all,
        }
        if cursor is not None:
            updates["cursor"] = cursor
        if read_all:
            updates["lease_until"] = 0  # nothing left for a run to do: the page tasks end it
        return self._jobs.move(
            job,
            {ListSendStatus.SENDING},
            ListSendStatus.SENDING,
            updates=updates,
            condition="attempt = :attempt",
            condition_values={":attempt": job.attempt},
        )

    def handing(self, job: ListSend) -> list[PageRange]:
        if job.handing_from is None:
            return []
        item = self._client.get_item(
            TableName=self._table, Key=self._jobs.key(job.account_id, job.id, HANDING), ConsistentRead=True
        ).get("Item")
        pages = [PageRange.model_validate(page) for page in from_attrs(item)["pages"]] if item else []
        return pages if pages and pages[0].index == job.handing_from else []

    def page_counted(self, job: ListSend, index: int) -> bool:
        item = self._client.get_item(
            TableName=self._table, Key=self._page_key(job, index), ConsistentRead=True, ProjectionExpression="pk"
        ).get("Item")
        return item is not None

    def count_page(self, job: ListSend, index: int, page: PageResult) -> ListSend | None:
        room = MAX_REPORTED_FAILURES - len(job.failed_members)  # as read: pages side by side read the same
        failures = page.failures[: max(room, 0)]
        try:
            self._count_page(job, index, page, failures)
        except ClientError as error:
            if _marker_exists(error):  # counted before
                return None
            if not (failures and cancellation_codes(error)[1:2] == ["ConditionalCheckFailed"]):
                raise
            # The job's list filled while this page was sent (page tasks side by side each read it
            # short; unbounded, it could take a page's failures per page task at once, and every later
            # count write would carry them): the page's counts without its failures.
            try:
                self._count_page(job, index, page, [])
            except ClientError as again:
                if _marker_exists(again):
                    return None
                raise
        return self._jobs.get(job.account_id, job.id)

    def _count_page(self, job: ListSend, index: int, page: PageResult, failures: list[FailedMember]) -> None:
        """One transaction: the page's marker, which must be new, and the page's counts ADDed to the
        job with `failures` appended, these only while the job's list holds fewer than
        MAX_REPORTED_FAILURES (cancelled otherwise, item by item as DynamoDB reports it)."""
        counts = outcome_counts(page)
        names = {f"#c{n}": name for n, name in enumerate(counts)}
        values: dict[str, Any] = {f":c{n}": {"N": str(count)} for n, count in enumerate(counts.values())}
        values[":one"] = {"N": "1"}
        update = "ADD pages :one, " + ", ".join(f"#c{n} :c{n}" for n in range(len(counts)))
        condition = "attribute_exists(pk)"
        if failures:
            update += " SET failed_members = list_append(if_not_exists(failed_members, :none), :failures)"
            condition += " AND (attribute_not_exists(failed_members) OR size(failed_members) < :most)"
            values[":none"] = {"L": []}
            values[":most"] = {"N": str(MAX_REPORTED_FAILURES)}
            values[":failures"] = to_attrs({"f": [failure.model_dump(mode="json") for failure in failures]})["f"]
        marker = {
            **self._page_key(job, index),
            "purge_at": epoch((job.send_at or job.created_at) + 2 * JOB_PURGE_AFTER),  # the job goes before it
        }
        self._client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": self._table, "Item": marker, "ConditionExpression": "attribute_not_exists(pk)"}},
                {"Update": {"TableName": self._table, "Key": self._jobs.key(job.account_id, job.id),
                            "UpdateExpression": update, "ConditionExpression": condition,
                            "ExpressionAttributeNames": names, "ExpressionAttributeValues": values}},
            ]
        )  # fmt: skip

    def end_fanned_out(
        self,
        job: ListSend,
        to: ListSendStatus,
        *,
        held: set[ListSendStatus],
        attempt: int | None = None,
        error_message: str | None = None,
    ) -> ListSend | None:
        now = job.completed_at or job.created_at
        updates: dict[str, Any] = {
            "completed_at": now.isoformat(),
            "lease_until": 0,
            "purge_at": int((now + JOB_PURGE_AFTER).timestamp()),  # as the item()'s own
        }
        if error_message is not None:
            updates["error_message"] = error_message
        if to is ListSendStatus.CANCELLED and job.cancel_requested_at is not None:
            updates["cancel_requested_at"] = job.cancel_requested_at.isoformat()
        return self._jobs.move(
            job,
            held,
            to,
            updates=updates,
            condition="attempt = :attempt" if attempt is not None else "",
            condition_values={":attempt": attempt} if attempt is not None else None,
        )

    def _page_key(self, job: ListSend, index: int) -> dict[str, Any]:
        return self._jobs.key(job.account_id, job.id, PAGE, f"{index:06d}")


def _marker_exists(error: ClientError) -> bool:
    """A count's transaction cancelled by its page's marker: the page was counted before."""
    return cancellation_codes(error)[:1] == ["ConditionalCheckFailed"]
