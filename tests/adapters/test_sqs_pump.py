"""The embedded runtime's SQS pump against moto: an event whose ScalingConfig allows several
concurrent batches gets them (as Lambda runs them), capped on one machine, and every message is
delivered once and deleted; an event without ScalingConfig runs one batch at a time."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from devtools.local import pumps
from devtools.local.activity import Activity
from devtools.local.pumps import LOCAL_MAX_CONCURRENCY, BatchSettings, Pump, SqsPump
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock
from tests.support import eventually


class SlowConsumer:
    """A function that takes a while per batch and notes how many batches ran at once."""

    logical_id = "SlowWorker"
    name = "slow"

    def __init__(self) -> None:
        self.bodies: list[str] = []
        self.most_at_once = 0
        self._running = 0
        self._lock = threading.Lock()

    def invoke(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._running += 1
            self.most_at_once = max(self.most_at_once, self._running)
        time.sleep(0.3)
        with self._lock:
            self._running -= 1
            self.bodies += [record["body"] for record in event["Records"]]


@pytest.fixture(autouse=True)
def _short_long_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """moto in-process has no wake (the runtime's emulator does): a stopping pump's receive ends
    when its long poll does."""
    monkeypatch.setattr(pumps, "_LONG_POLL_SECONDS", 1)


def _run(stack: InProcessStack, props: dict[str, Any], messages: int) -> tuple[SlowConsumer, int]:
    sqs = stack.client("sqs")
    url = sqs.create_queue(QueueName=f"pump-{len(props)}-{time.monotonic_ns()}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    for start in range(0, messages, 10):
        entries = [{"Id": str(n), "MessageBody": f"m{n}"} for n in range(start, min(start + 10, messages))]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    consumer = SlowConsumer()
    settings = BatchSettings.of(consumer, props, default_batch_size=10)
    pump = SqsPump(settings, sqs, url, arn, FixedClock(), Activity())
    pump.start()
    try:
        eventually(lambda: len(consumer.bodies) == messages, timeout=30)
        eventually(pump.idle, timeout=30)
    finally:
        Pump.stop_all([pump])
    left = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return consumer, int(left["ApproximateNumberOfMessages"]) + int(left["ApproximateNumberOfMessagesNotVisible"])


def test_scaling_config_runs_batches_concurrently_up_to_the_local_cap(stack: InProcessStack) -> None:
    props = {"BatchSize": 2, "ScalingConfig": {"MaximumConcurrency": 50}}
    assert BatchSettings.of(SlowConsumer(), props, default_batch_size=10).concurrency == LOCAL_MAX_CONCURRENCY
    consumer, left = _run(stack, props, messages=16)
    assert sorted(consumer.bodies) == sorted(f"m{n}" for n in range(16))  # each once
    assert left == 0  # all deleted
    assert 2 <= consumer.most_at_once <= LOCAL_MAX_CONCURRENCY


def test_without_scaling_config_one_batch_runs_at_a_time(stack: InProcessStack) -> None:
    consumer, left = _run(stack, {"BatchSize": 2}, messages=6)
    assert sorted(consumer.bodies) == sorted(f"m{n}" for n in range(6)) and left == 0
    assert consumer.most_at_once == 1
