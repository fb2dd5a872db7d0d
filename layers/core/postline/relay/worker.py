"""The relay task's loop: long-poll the relay queue, run each job through the dispatcher, delete it.

The jobs are the send queue's own (DispatchJob), handed over unchanged, and each one runs through
Dispatcher.dispatch exactly as the dispatcher Lambda runs its own: the message's lease, the
per-recipient conditional records and the retry schedule are the same code, so a job delivered twice
(SQS is at least once; the dispatcher may hand one over twice) sends nothing twice, and a task that
dies mid-job leaves a lease that expires before the job comes back (the queue's visibility timeout,
360 s in infra/template.base.yaml, is longer than LEASE_SECONDS): the redelivery finishes the
recipients it had not recorded.

A job that fails (RetryLater, an AWS error) is not deleted: it comes back after the visibility
timeout, and after maxReceiveCount receives it goes to the relay dead-letter queue (LAST_RECEIVE
fails its recipients before that, as in the Lambda). Batches are shaped as Lambda's SQS event so the
embedded runtime's pumps can feed `deliver_batch` directly.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import ValidationError

from postline.delivery.service import Dispatcher
from postline.sending.dispatch_job import DispatchJob
from postline.tlsrpt.models import TlsReportJob
from postline.tlsrpt.service import TlsReportService

logger = logging.getLogger(__name__)
LONG_POLL_SECONDS = 20  # SQS's longest: an idle task costs three receives a minute
BATCH_SIZE = 10  # SQS's most per receive
_REGION_UNKNOWN = ""


def deliver_batch(
    event: dict[str, Any], dispatcher: Dispatcher, reports: Callable[[], TlsReportService] | None = None
) -> PartialItemFailureResponse:
    """Delivers a batch of relay jobs (Lambda's SQS event shape); reports the ones to retry.

    A `tls_reports` job (the daily schedule's, postline/tlsrpt) runs the TLS-RPT reports instead:
    `reports` builds the service that does (None: such a job fails, and is retried)."""
    ids = []
    for record in event.get("Records", []):
        try:
            ids.append(DispatchJob.model_validate_json(record["body"]).message_id)
        except (KeyError, ValidationError):
            continue  # a report job, or a malformed one that fails its own record below
    dispatcher.prefetch(ids)

    def deliver(record: SQSRecord) -> None:
        if TlsReportJob.is_one(record.body):
            if reports is None:
                raise RuntimeError("this relay cannot run TLS reports")
            run = TlsReportJob.model_validate_json(record.body)
            summary = reports().run(scheduled_at=run.scheduled_at, day=run.day)
            logger.info("TLS reports for %s: %s", summary.days, summary)
            return
        job = DispatchJob.model_validate_json(record.body)
        dispatcher.dispatch(job, receive_count=int(record.attributes.approximate_receive_count))

    # A batch that failed whole is an answer too (every job to retry), not an error of the loop.
    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    with dispatcher.batch():
        return process_partial_response(event=event, record_handler=deliver, processor=processor)


class RelayWorker:
    def __init__(
        self,
        sqs: Any,
        queue_url: str,
        queue_arn: str,
        dispatcher: Callable[[], Dispatcher],
        *,
        reports: Callable[[], TlsReportService] | None = None,
        wait_seconds: int = LONG_POLL_SECONDS,
    ) -> None:
        self._reports = reports
        self._sqs = sqs
        self._queue_url = queue_url
        self._queue_arn = queue_arn
        self._dispatcher = dispatcher
        self._wait = wait_seconds

    def poll(self) -> int:
        """Receives one batch (waiting up to the long poll), delivers it and deletes what succeeded.
        Returns how many jobs were received."""
        messages: list[dict[str, Any]] = self._sqs.receive_message(
            QueueUrl=self._queue_url,
            MaxNumberOfMessages=BATCH_SIZE,
            WaitTimeSeconds=self._wait,
            AttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return 0
        event = {"Records": [self._record(message) for message in messages]}
        response = deliver_batch(event, self._dispatcher(), self._reports)
        failed = {item["itemIdentifier"] for item in response.get("batchItemFailures", [])}
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)]
            answer = self._sqs.delete_message_batch(QueueUrl=self._queue_url, Entries=entries)
            for failure in answer.get("Failed", []):  # it comes back, and finds its recipients recorded
                logger.warning("could not delete a delivered relay job: %s", failure)
        return len(messages)

    def run(self, stopping: threading.Event) -> None:
        """Polls until `stopping` is set (SIGTERM); the batch in hand is finished first."""
        while not stopping.is_set():
            try:
                self.poll()
            except Exception:
                logger.exception("relay poll failed")
                stopping.wait(1.0)

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": {},
            "md5OfBody": message.get("MD5OfBody", ""),
            "eventSource": "aws:sqs",
            "eventSourceARN": self._queue_arn,
            "awsRegion": self._queue_arn.split(":")[3] if self._queue_arn.count(":") >= 3 else _REGION_UNKNOWN,
        }
