"""The list job queue (functions/workers/list_jobs.py): deleted lists whose members the list worker
removes, and list sends whose next pages it sends."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class ListJobMessage(BaseModel):
    account_id: str
    list_id: str
    kind: Literal["delete_members", "send"] = "delete_members"
    send_id: str | None = None  # a list send's job (kind send)


class SqsListJobQueue:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._url = queue_url

    def enqueue_deletion(self, account_id: str, list_id: str) -> None:
        self._send(ListJobMessage(account_id=account_id, list_id=list_id))

    def enqueue_send(self, account_id: str, list_id: str, send_id: str) -> None:
        self._send(ListJobMessage(account_id=account_id, list_id=list_id, kind="send", send_id=send_id))

    def _send(self, message: ListJobMessage) -> None:
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json(exclude_none=True))
