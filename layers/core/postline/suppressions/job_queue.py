"""The suppression job queue: imports to read (again, or on from a checkpoint) and exports to write,
one worker for both (functions/workers/suppression_jobs.py)."""

from __future__ import annotations

from typing import Any, Literal

from postline.shared.base import Model
from postline.suppressions.exports import SuppressionExport
from postline.suppressions.imports import SuppressionImport


class SuppressionJobMessage(Model):
    account_id: str
    job_id: str
    kind: Literal["import", "export"]


class SqsSuppressionJobQueue:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._url = queue_url

    def enqueue(self, job: SuppressionImport | SuppressionExport) -> None:
        kind: Literal["import", "export"] = "import" if isinstance(job, SuppressionImport) else "export"
        message = SuppressionJobMessage(account_id=job.account_id, job_id=job.id, kind=kind)
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json())
