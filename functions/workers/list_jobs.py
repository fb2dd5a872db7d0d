"""The list job queue's consumer: removes a deleted list's members, a bounded number of pages per
message, queueing the rest (postline/lists/service.py `remove_members`); and sends a list send's
next pages from its checkpoint, or one page of it (a page task) (postline/lists/send_service.py)."""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from postline import wiring
from postline.lists.job_queue import ListJobMessage
from postline.observability import logger, tracer
from postline.wiring import lists, sending
from postline.workers import queue_worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@tracer.capture_method(capture_response=False)
def run_job(record: SQSRecord) -> None:
    job = ListJobMessage.model_validate_json(record.body)
    logger.thread_safe_append_keys(list_id=job.list_id, account_id=job.account_id, kind=job.kind)
    if job.kind == "send":
        if job.send_id is None:  # never written so; dropped rather than read as a deletion
            logger.error("a list send message without its send_id: dropped")
            return
        receive_count = int(record.attributes.approximate_receive_count)
        sending.list_send_service().run(job.account_id, job.send_id, receive_count=receive_count)
        return
    if job.kind == "send_page":
        if job.send_id is None or job.page is None:
            logger.error("a list page task without its send_id or page: dropped")
            return
        receive_count = int(record.attributes.approximate_receive_count)
        sending.list_send_service().run_page(job.account_id, job.send_id, job.page, receive_count=receive_count)
        return
    done = lists.list_service().remove_members(job.account_id, job.list_id)
    logger.info("list members removed", extra={"done": done})


handler = queue_worker(run_job)
