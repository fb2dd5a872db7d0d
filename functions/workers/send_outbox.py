"""The messages table's stream consumer: queues the dispatch job of each message stored to go out
now (sending/outbox.py). A failure raises, and the stream gives the batch again."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.sending.store import inserted_messages
from postline.wiring import sending
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    sending.outbox().relay(inserted_messages(event["Records"]))
