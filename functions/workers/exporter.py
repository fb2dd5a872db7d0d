"""The export queue's consumer: writes each event export's CSV (one job per batch)."""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from postline import wiring
from postline.exports.domain import ExportMessage
from postline.observability import logger, tracer
from postline.wiring import exports
from postline.workers import queue_worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@tracer.capture_method(capture_response=False)  # one export's file: its queries and upload parts inside
def export(record: SQSRecord) -> None:
    job = ExportMessage.model_validate_json(record.body)
    # A context variable: no other invocation running beside this one logs it.
    logger.thread_safe_append_keys(export_id=job.export_id, account_id=job.account_id)
    receive_count = int(record.attributes.approximate_receive_count)
    exports.export_service().run(job.account_id, job.export_id, receive_count=receive_count)


handler = queue_worker(export)
