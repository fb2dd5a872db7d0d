"""The events table's stream consumer: each new event's webhook deliveries and first attempts.

The whole batch is one unit: a failure re-runs it, and the deliveries' deterministic ids make
the second run skip what the first one finished.
"""

from typing import Any

from aws_lambda_powertools.utilities.data_classes import DynamoDBStreamEvent
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecordEventName
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.events.store import EVENT_PREFIX, event_of
from postline.observability import logger


@logger.inject_lambda_context
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    stream = DynamoDBStreamEvent(event)
    new_events = [
        event_of(record.raw_event["dynamodb"]["NewImage"])
        for record in stream.records
        # The template's FilterCriteria passes inserted events only (not their tag items); checked
        # again where no filter applies.
        if record.event_name is DynamoDBRecordEventName.INSERT
        and record.raw_event["dynamodb"]["Keys"]["pk"]["S"].startswith(EVENT_PREFIX)
    ]
    wiring.webhook_deliverer().fan_out(new_events, remaining_ms=context.get_remaining_time_in_millis)
