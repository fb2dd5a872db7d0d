"""What keeps an idle `make run` nearly free (issue: idle cost): the pumps' long polls last 20 s
and a wake ends every one in progress (devtools/moto_patches/wakes.py); the ticker lists schedules
and executions again only when the emulator counted a write to them (control_writes.py).

Against a real emulator child: its HTTP server, moto's queues, streams, schedules and workflows.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from devtools.local.emulator import Emulator

WAIT_BOUND_SECONDS = 10  # a wait still going after this failed to end (the polls themselves last 20 s)


def _in_thread(work: Any) -> tuple[threading.Thread, list[Any]]:
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(work()), daemon=True)
    thread.start()
    return thread, answers


def test_a_wake_ends_the_long_polls_in_progress_empty(emulator: Emulator) -> None:
    sqs = emulator.client("sqs")
    url = sqs.create_queue(QueueName="woken-queue")["QueueUrl"]
    emulator.client("dynamodb").create_table(
        TableName="woken-table",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    )
    receive, received = _in_thread(lambda: sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20).get("Messages", []))
    stream, counted = _in_thread(lambda: emulator.stream_writes("woken-table", 0, 20))
    receive.join(0.5)
    assert receive.is_alive() and stream.is_alive()  # both are waiting
    emulator.wake()
    receive.join(WAIT_BOUND_SECONDS)
    stream.join(WAIT_BOUND_SECONDS)
    assert not receive.is_alive() and not stream.is_alive()
    assert received == [[]] and counted == [0]  # woken, not answered: nothing was there
    # A poll begun after the wake waits as before, and a message still answers it.
    later, answered = _in_thread(lambda: sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20).get("Messages", []))
    sqs.send_message(QueueUrl=url, MessageBody="after")
    later.join(WAIT_BOUND_SECONDS)
    assert [m["Body"] for m in answered[0]] == ["after"]


def test_schedules_and_executions_count_their_writes_and_nothing_else(emulator: Emulator) -> None:
    scheduler, sfn, sqs = emulator.client("scheduler"), emulator.client("stepfunctions"), emulator.client("sqs")
    arn = sqs.get_queue_attributes(
        QueueUrl=sqs.create_queue(QueueName="scheduled")["QueueUrl"], AttributeNames=["QueueArn"]
    )["Attributes"]["QueueArn"]
    start = emulator.control_writes()
    target = {"Arn": arn, "RoleArn": "arn:aws:iam::123456789012:role/scheduler"}
    scheduler.create_schedule(
        Name="once", ScheduleExpression="at(2030-01-01T00:00:00)", FlexibleTimeWindow={"Mode": "OFF"}, Target=target
    )
    assert emulator.control_writes() > start
    after_create = emulator.control_writes()
    scheduler.list_schedules()
    scheduler.get_schedule(Name="once")
    machine = sfn.create_state_machine(
        name="waits",
        definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
        roleArn="arn:aws:iam::123456789012:role/sfn",
    )["stateMachineArn"]
    after_machine = emulator.control_writes()
    assert after_machine > after_create  # creating a machine is a write too
    sfn.list_executions(stateMachineArn=machine)
    sfn.describe_state_machine(stateMachineArn=machine)
    assert emulator.control_writes() == after_machine  # reads count nothing
    sfn.start_execution(stateMachineArn=machine, input="{}")
    assert emulator.control_writes() > after_machine
    before_delete = emulator.control_writes()
    scheduler.delete_schedule(Name="once")
    assert emulator.control_writes() > before_delete


def test_a_snapshot_ends_the_long_polls_instead_of_waiting_out_their_20_seconds(tmp_path: Path) -> None:
    """A snapshot waits until no request is in progress; a long poll is one for 20 s, and every
    call made meanwhile waited behind the snapshot (an API call of `make run` held past its
    Lambda timeout every 50 s). The snapshot wakes the polls: both end well within the bound."""
    persisting = Emulator(port=0, state_file=tmp_path / "emulator.pickle")
    persisting.start()
    try:
        sqs = persisting.client("sqs")
        url = sqs.create_queue(QueueName="polled-while-saved")["QueueUrl"]
        receive, received = _in_thread(lambda: sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
        receive.join(0.5)
        assert receive.is_alive()  # waiting for a message
        saving, _ = _in_thread(lambda: persisting.snapshot({"stack": {}}))
        saving.join(WAIT_BOUND_SECONDS)
        assert not saving.is_alive(), "the snapshot waited out the long poll"
        receive.join(WAIT_BOUND_SECONDS)
        assert received and "Messages" not in received[0]
        assert (tmp_path / "emulator.pickle").is_file()
    finally:
        persisting.stop()


def test_queue_depths_answer_for_many_queues_what_get_queue_attributes_answers(emulator: Emulator) -> None:
    """Runtime.drain asks once for every pump's queue (devtools/moto_patches/queue_depths.py)."""
    sqs = emulator.client("sqs")
    busy, empty = (sqs.create_queue(QueueName=name)["QueueUrl"] for name in ("depths-busy", "depths-empty"))
    for n in range(3):
        sqs.send_message(QueueUrl=busy, MessageBody=str(n))
    sqs.receive_message(QueueUrl=busy, MaxNumberOfMessages=1, VisibilityTimeout=300)

    depths = emulator.queue_depths(["depths-busy", "depths-empty", "depths-absent"])

    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    for url, name in ((busy, "depths-busy"), (empty, "depths-empty")):
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
        assert depths[name] == (int(attributes[names[0]]), int(attributes[names[1]]))
    assert depths == {"depths-busy": (2, 1), "depths-empty": (0, 0)}  # an absent queue is left out
