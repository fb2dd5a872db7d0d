"""The resend queue's consumer: resolves resend jobs and makes each resend's single attempt.

A job message selects the deliveries and queues one attempt message per resend on this same
queue; an attempt can take 30 s, so they are spread over batches and containers.
"""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from postline import wiring
from postline.observability import logger
from postline.webhook_resend.domain import ResendMessage
from postline.wiring import webhook_resend
from postline.workers import queue_worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


def resend(record: SQSRecord) -> None:
    message = ResendMessage.model_validate_json(record.body)
    # A context variable: no other invocation running beside this one logs it.
    logger.thread_safe_append_keys(
        resend_id=message.job_id, account_id=message.account_id, delivery_id=message.delivery_id
    )
    service = webhook_resend.webhook_resend_service()
    receive_count = int(record.attributes.approximate_receive_count)
    if message.delivery_id is None:
        service.run(message.account_id, message.job_id, receive_count=receive_count)
    else:
        service.attempt(message.account_id, message.job_id, message.delivery_id, receive_count=receive_count)


handler = queue_worker(resend)
