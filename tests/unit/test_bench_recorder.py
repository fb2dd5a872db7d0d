"""bench/recorder.py: a side-by-side worker's calls are told apart from, and tied to, their caller's."""

from __future__ import annotations

import threading
from typing import Any

import boto3
from botocore.stub import Stubber

from bench import cloud
from bench.recorder import CallRecorder
from postline.shared.parallel import run_each


def test_a_workers_calls_carry_the_serial_of_the_invocation_they_worked_for() -> None:
    sqs = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    stub = Stubber(sqs)
    for _ in range(6):
        stub.add_response("get_queue_url", {"QueueUrl": "https://queue"})

    def invocation() -> None:  # a run first, then a call of its own, as the send path begins
        run_each([lambda: sqs.get_queue_url(QueueName="q")] * 2, lambda _: None, workers=2)
        sqs.get_queue_url(QueueName="q")

    with stub, CallRecorder() as recorder:
        for request in (1, 2):
            thread = threading.Thread(target=invocation, name=f"request {request} > postline-local-SendMessageFunction")
            thread.start()
            thread.join()
        calls = recorder.since(0)

    own = [call for call in calls if " > part" not in call.thread]
    workers = [call for call in calls if " > part" in call.thread]
    assert len(own) == 2 and len(workers) == 4
    assert all(call.caller_serial == call.thread_serial for call in own)
    assert {call.caller_serial for call in workers} == {call.thread_serial for call in own}
    memory: Any = {"SendMessageFunction": 1024}
    groups = cloud.invocations(calls, memory)
    assert sorted(len(group) for group in groups.values()) == [3, 3]  # each invocation with its workers
