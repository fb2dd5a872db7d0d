"""The list job queue: deleted lists whose members the list worker removes (functions/workers/list_jobs.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class ListJobMessage(BaseModel):
    account_id: str
    list_id: str
    kind: Literal["delete_members"] = "delete_members"


class SqsListJobQueue:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._url = queue_url

    def enqueue_deletion(self, account_id: str, list_id: str) -> None:
        message = ListJobMessage(account_id=account_id, list_id=list_id)
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json())
