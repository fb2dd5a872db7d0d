"""The bulk verification queue's consumer: one chunk of a job per message."""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from postline import wiring
from postline.observability import logger
from postline.verification.bulk import ChunkMessage
from postline.wiring import verification
from postline.workers import queue_worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


def check_chunk(record: SQSRecord) -> None:
    message = ChunkMessage.model_validate_json(record.body)
    logger.thread_safe_append_keys(job_id=message.job_id, account_id=message.account_id, chunk=message.chunk)
    verification.bulk_verification_service().run_chunk(message)


handler = queue_worker(check_chunk)
