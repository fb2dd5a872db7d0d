"""List send jobs in the jobs table (its layout and the jobs' lifecycle: shared/jobs.py).

    JOB#<account>  LIST_SEND#<id>   a list send with its cursor and counts; purge_at (TTL) 30 days
                                    after it ended

The worker claims the job under a lease; each page's checkpoint, and the end, is written only by the
attempt holding it (the whole job, conditional on status sending and that attempt).

Cancelling (DELETE /v3/lists/{id}/sends/{send_id}) is a conditional status move as well: a job no
attempt holds (pending, scheduled, or sending between two runs: no live lease) becomes cancelled at
once; one under a live lease becomes cancelling, which refuses that attempt's next checkpoint, and
the attempt then stores its counts as cancelled (end_cancelled, conditional on cancelling and its
attempt). A cancelling job whose attempt died is ended by the next delivery once the lease ran out.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from postline.lists.sends import ListSend, ListSendStatus
from postline.shared.jobs import JobKind, JobTable

JOB_PURGE_AFTER = timedelta(days=30)


def _purge_at(job: ListSend) -> datetime:
    return (job.completed_at or job.created_at) + JOB_PURGE_AFTER


LIST_SENDS = JobKind(prefix="LIST_SEND", model=ListSend, purge_at=_purge_at)


class DynamoListSends:
    def __init__(self, client: Any, table: str) -> None:
        self._jobs = JobTable(client, table, LIST_SENDS)

    def create(self, job: ListSend) -> bool:
        """False, writing nothing, when a job of that id exists (a retry of a keyed send)."""
        return self._jobs.create(job)

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

    def cancel_unheld(self, job: ListSend, now: datetime) -> ListSend | None:
        """pending, sending or cancelling with no live lease -> cancelled: the job as stored after;
        None when it is in another status or an attempt holds it. `job` as read: a cancelling
        one's cancel_requested_at is kept."""
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
            condition="attribute_not_exists(lease_until) OR lease_until < :now",
            condition_values={":now": int(now.timestamp())},
        )

    def request_cancel(self, job: ListSend, now: datetime) -> ListSend | None:
        """sending under a live lease -> cancelling (the attempt stops at its next checkpoint)."""
        return self._jobs.move(
            job,
            {ListSendStatus.SENDING},
            ListSendStatus.CANCELLING,
            updates={"cancel_requested_at": now.isoformat()},
            condition="lease_until >= :now",
            condition_values={":now": int(now.timestamp())},
        )

    def end_cancelled(self, job: ListSend) -> bool:
        """Stores the job (status cancelled, its attempt's counts) if it is cancelling under that attempt."""
        return self._jobs.finish(job, job.attempt, held=ListSendStatus.CANCELLING)

    def fail_pending(self, job: ListSend) -> None:
        """A job whose queue message could not be sent: failed, unless a worker took it meanwhile."""
        self._jobs.move(job, {ListSendStatus.PENDING}, ListSendStatus.FAILED, updates={
            "error_message": job.error_message, "completed_at": job.completed_at,
        })  # fmt: skip
