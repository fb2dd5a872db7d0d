"""The list job queue (functions/workers/list_jobs.py): deleted lists whose members the list worker
removes, and list sends whose next pages it sends."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from postline.lists.sends import PageRange
from postline.shared.base import Model

if TYPE_CHECKING:
    from postline.shared.delayed_queue import DelayedQueue


class ListJobMessage(Model):
    account_id: str
    list_id: str
    kind: Literal["delete_members", "send", "send_page"] = "delete_members"
    send_id: str | None = None  # a list send's job (kind send), or the job a page task is of (send_page)
    page: PageRange | None = None  # a page task's page (kind send_page)


def _schedule(send_id: str) -> str:
    return f"send-list-{send_id}"


class SqsListJobQueue:
    def __init__(self, sqs: Any, queue_url: str, delayed: Callable[[], DelayedQueue]) -> None:
        """delayed: the same queue for a list send scheduled later (built when one is)."""
        self._sqs = sqs
        self._url = queue_url
        self._delayed = delayed

    def enqueue_deletion(self, account_id: str, list_id: str) -> None:
        self._send(ListJobMessage(account_id=account_id, list_id=list_id))

    def enqueue_send(self, account_id: str, list_id: str, send_id: str, *, not_before: datetime | None = None) -> None:
        message = ListJobMessage(account_id=account_id, list_id=list_id, kind="send", send_id=send_id)
        if not_before is None:
            self._send(message)
        else:  # the members are read when it is due: who unsubscribes before then is not mailed
            self._delayed().send(
                [(_schedule(send_id), message.model_dump_json(exclude_none=True))], not_before=not_before
            )

    def enqueue_pages(self, account_id: str, list_id: str, send_id: str, pages: list[PageRange]) -> None:
        for start in range(0, len(pages), 10):  # SendMessageBatch's most
            batch = pages[start : start + 10]
            entries = [
                {
                    "Id": str(page.index),
                    "MessageBody": ListJobMessage(
                        account_id=account_id, list_id=list_id, kind="send_page", send_id=send_id, page=page
                    ).model_dump_json(exclude_none=True),
                }
                for page in batch
            ]
            failed = self._sqs.send_message_batch(QueueUrl=self._url, Entries=entries).get("Failed") or []
            if failed:  # the run raises and is redone: its pages are queued again
                raise RuntimeError(f"list send {send_id}: {len(failed)} page tasks not queued: {failed[0]}")

    def unschedule_send(self, send_id: str) -> None:
        """A cancelled list send's schedule (a job due within SQS's delay has none: its message finds
        the job cancelled and is dropped)."""
        self._delayed().unschedule(_schedule(send_id))

    def _send(self, message: ListJobMessage) -> None:
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json(exclude_none=True))
