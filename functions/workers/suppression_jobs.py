"""The suppression job queue's consumer: reads an import's CSV on from its checkpoint, or writes an
export's CSV (one job per batch)."""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from postline import wiring
from postline.observability import logger, tracer
from postline.suppressions.job_queue import SuppressionJobMessage
from postline.wiring import suppressions
from postline.workers import queue_worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@tracer.capture_method(capture_response=False)  # one job's reads and writes inside
def run_job(record: SQSRecord) -> None:
    job = SuppressionJobMessage.model_validate_json(record.body)
    logger.thread_safe_append_keys(job_id=job.job_id, kind=job.kind, account_id=job.account_id)
    receive_count = int(record.attributes.approximate_receive_count)
    if job.kind == "import":
        suppressions.suppression_import_service().run(job.account_id, job.job_id, receive_count=receive_count)
    else:
        suppressions.suppression_export_service().run(job.account_id, job.job_id, receive_count=receive_count)


handler = queue_worker(run_job)
