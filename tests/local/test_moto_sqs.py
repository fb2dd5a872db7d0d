"""The emulator's SQS patch (devtools/moto_patches/moto_sqs.py): the same answers as moto's own SQS,
at a cost that does not grow with the queue.

The equivalence tests replay one random sequence of operations (sends with delays, receives with
visibility timeouts, deletes and visibility changes by current, earlier and deleted receipt
handles, DLQ redrive, purges, attribute reads, the clock moving, across exact visibility
boundaries) against moto's own code and against the patched code, each on fresh queues, with
moto's random source seeded and its clock replaced, and compare every answer and error.
"""

from __future__ import annotations

import pickle
import random
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import moto.sqs.models as sqs_models
import pytest
from moto.moto_api._internal import mock_random
from moto.sqs.exceptions import ReceiptHandleIsInvalid
from moto.sqs.models import Queue, SQSBackend, sqs_backends

from devtools.moto_patches import moto_sqs

REGION = "us-east-1"
MAX_RECEIVES = 3  # the redrive policy's maxReceiveCount
Trace = list[tuple[str, Any]]


class FakeClock:
    """moto.sqs.models' unix_time / unix_time_millis, moved by the test."""

    def __init__(self) -> None:
        self.ms = 1_700_000_000_000.0

    def millis(self) -> float:
        return self.ms

    def seconds(self) -> float:
        return self.ms / 1000


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(sqs_models, "unix_time_millis", fake.millis)
    monkeypatch.setattr(sqs_models, "unix_time", fake.seconds)
    return fake


@pytest.fixture
def patched() -> Iterator[None]:
    with moto_sqs.installed():
        yield


def _backend(account: str | None = None) -> SQSBackend:
    """A backend without queues: moto keeps one per account and region."""
    backend: SQSBackend = sqs_backends[account or f"{random.randrange(10**11, 10**12)}"][REGION]
    backend.reset()
    return backend


def _queues(backend: SQSBackend) -> tuple[Queue, Queue]:
    dlq = backend.create_queue("jobs-dlq")
    redrive = f'{{"deadLetterTargetArn": "{dlq.queue_arn}", "maxReceiveCount": {MAX_RECEIVES}}}'
    return backend.create_queue("jobs", RedrivePolicy=redrive, VisibilityTimeout="2"), dlq


def _message(message: Any) -> tuple[Any, ...]:
    return (
        message.id,
        message.body,
        message.receipt_handle,
        message.approximate_receive_count,
        message.approximate_first_receive_timestamp,
        message.sent_timestamp,
        message.message_attributes,
    )


def _run(seed: int, steps: int, clock: FakeClock) -> Trace:
    """One random sequence of operations; every answer (or error) in order."""
    mock_random.seed(seed)
    choose = random.Random(seed)
    backend = _backend(f"{100_000_000_000 + seed}")  # the same ARNs in both runs
    _queues(backend)
    handles: list[str] = []  # every receipt handle seen, current or not
    trace: Trace = []

    def record(name: str, call: Callable[[], Any]) -> Any:
        try:
            value = call()
        except Exception as error:
            trace.append((name, ("error", type(error).__name__, str(error))))
            return None
        trace.append((name, value))
        return value

    def receive(name: str) -> None:
        received = record(
            "dlq" if name.endswith("-dlq") else "receive",
            lambda: [
                _message(m)
                for m in backend.receive_message(
                    name, choose.randint(1, 10), 0, choose.choice([0, 0, 1, 2, 5]), ["All"]
                )
            ],
        )
        handles.extend(m[2] for m in received or [])

    def handle() -> str:
        if handles and choose.random() < 0.95:
            return choose.choice(handles[-30:]) if choose.random() < 0.8 else choose.choice(handles)
        return "not-a-handle"

    for step in range(steps):
        kind = choose.choices(
            [
                *("send", "batch", "receive", "delete", "delete_batch", "visibility", "visibility_batch", "clock"),
                *("attributes", "dlq", "purge"),
            ],
            weights=[14, 6, 20, 12, 4, 8, 3, 16, 3, 4, 0.8],
        )[0]
        if kind == "send":
            delay = choose.choice([None, 0, 0, 1, 3])
            attributes = {"n": {"DataType": "Number", "StringValue": str(step)}} if choose.random() < 0.3 else None
            record(kind, partial(_sent, backend, f"body {step}", attributes, delay))
        elif kind == "batch":
            entries = {
                str(i): {"Id": f"e{i}", "MessageBody": f"body {step}.{i}", "MessageAttributes": {}}
                | {"DelaySeconds": choose.choice([0, 0, 2, 901])}
                for i in range(choose.randint(1, 10))
            }
            record(kind, partial(_batch_answer, backend, entries))
        elif kind == "receive":
            receive("jobs")
        elif kind == "dlq":
            receive("jobs-dlq")
        elif kind == "delete":
            target = handle()
            record(kind, partial(backend.delete_message, choose.choice(["jobs", "jobs", "jobs-dlq"]), target))
        elif kind == "delete_batch":
            receipts = [{"Id": str(i), "ReceiptHandle": handle()} for i in range(choose.randint(1, 4))]
            record(kind, partial(backend.delete_message_batch, "jobs", receipts))
        elif kind == "visibility":
            target, seconds = handle(), choose.choice([0, 0, 1, 2, 30, 43_300])
            record(kind, partial(backend.change_message_visibility, "jobs", target, seconds))
        elif kind == "visibility_batch":
            entries_v = [
                {"Id": str(i), "ReceiptHandle": handle(), "VisibilityTimeout": choose.choice([0, 1, 3])}
                for i in range(choose.randint(1, 4))
            ]
            record(kind, partial(backend.change_message_visibility_batch, "jobs", entries_v))
        elif kind == "clock":
            # Whole seconds too: visible_at - now lands exactly on 0, where moto's "visible" is strict.
            clock.ms += choose.choice([0, 1, 999, 1000, 1000, 2000, 2001, 5000])
            trace.append((kind, clock.ms))
        elif kind == "attributes":
            names = choose.choice([["All"], ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]])
            record(kind, partial(backend.get_queue_attributes, choose.choice(["jobs", "jobs-dlq"]), names))
        else:
            record(kind, lambda: backend.purge_queue("jobs"))
    for name in ("jobs", "jobs-dlq"):
        record("final", partial(_stored, backend, name))
        record("final", partial(backend.get_queue_attributes, name, ["All"]))
    return trace


def _sent(backend: SQSBackend, body: str, attributes: dict[str, Any] | None, delay: int | None) -> tuple[Any, ...]:
    return _message(backend.send_message("jobs", body, attributes, delay))


def _batch_answer(backend: SQSBackend, entries: dict[str, dict[str, Any]]) -> tuple[list[Any], list[dict[str, Any]]]:
    sent, failed = backend.send_message_batch("jobs", entries)
    return [_message(m) for m in sent], failed


def _stored(backend: SQSBackend, name: str) -> list[tuple[Any, ...]]:
    return sorted(_message(m) for m in backend.get_queue(name)._messages)


def _first_difference(moto: Trace, patched: Trace) -> str:
    for index, (theirs, ours) in enumerate(zip(moto, patched, strict=False)):
        if theirs != ours:
            return f"step {index}: moto answered {theirs!r}, the patch {ours!r}"
    return f"moto made {len(moto)} steps, the patch {len(patched)}"


@pytest.mark.parametrize("seed", range(6))
def test_random_operations_answer_as_moto_does(seed: int, clock: FakeClock) -> None:
    start = clock.ms
    moto = _run(seed, 600, clock)
    clock.ms = start
    with moto_sqs.installed():
        ours = _run(seed, 600, clock)
    assert ours == moto, _first_difference(moto, ours)
    answered = {
        name for name, value in moto if value != [] and not (isinstance(value, tuple) and value[:1] == ("error",))
    }
    failed = {name for name, value in moto if isinstance(value, tuple) and value[:1] == ("error",)}
    # The sequence reached what it tests: redrive, and both outcomes of deletes and visibility changes.
    assert {"receive", "dlq", "delete", "visibility", "purge"} <= answered
    assert {"delete", "visibility"} <= failed


def test_messages_go_to_the_dead_letter_queue_after_max_receives(clock: FakeClock, patched: None) -> None:
    backend = _backend()
    _queues(backend)
    sent = backend.send_message("jobs", "poison")
    for receive in range(1, MAX_RECEIVES + 1):
        (message,) = backend.receive_message("jobs", 10, 0, 1)
        assert (message.id, message.approximate_receive_count) == (sent.id, receive)
        clock.ms += 1001
    assert backend.receive_message("jobs", 10, 0, 1) == []
    (moved,) = backend.receive_message("jobs-dlq", 10, 0, 1)
    assert (moved.id, moved.approximate_receive_count) == (sent.id, MAX_RECEIVES + 1)


def test_a_long_poll_wakes_when_a_message_arrives(clock: FakeClock, patched: None) -> None:
    backend = _backend()
    _queues(backend)
    sender = _later(0.2, lambda: backend.send_message("jobs", "late"))
    began = time.monotonic()
    (message,) = backend.receive_message("jobs", 10, 5, 30)
    sender.join()
    assert message.body == "late"
    assert time.monotonic() - began < 0.9  # woken by the send, not by the poll's one-second step


def test_calls_cost_the_same_on_a_deep_queue(patched: None) -> None:
    """Send, receive, change visibility and delete: 200 of each with 200 and with 20,200 queued."""

    def timed(backend: SQSBackend) -> float:
        began = time.perf_counter()
        for index in range(200):
            backend.send_message("jobs", f"m{index}")
        received = [m for _ in range(20) for m in backend.receive_message("jobs", 10, 0, 30)]
        for message in received:
            assert message.receipt_handle is not None
            backend.change_message_visibility("jobs", message.receipt_handle, 60)
            backend.delete_message("jobs", message.receipt_handle)
        return time.perf_counter() - began

    shallow, deep = _backend(), _backend()
    for backend, depth in ((shallow, 200), (deep, 20_200)):
        _queues(backend)
        for _ in range(depth // 10):
            entries = {
                str(i): {"Id": f"e{i}", "MessageBody": "x", "MessageAttributes": {}, "DelaySeconds": 0}
                for i in range(10)
            }
            backend.send_message_batch("jobs", entries)
        timed(backend)  # warm: the first receive also sorts every queued message once
    assert timed(deep) < 3 * timed(shallow) + 0.05


def test_deleted_messages_are_remembered_for_a_repeat_but_not_forever(
    clock: FakeClock, patched: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """moto kept every deleted message's handles: the queue's memory grew with each message."""
    monkeypatch.setattr(moto_sqs, "DELETED_HANDLES_KEPT", 50)
    backend = _backend()
    queue, _ = _queues(backend)
    handles: list[str] = []
    for index in range(120):
        backend.send_message("jobs", f"m{index}")
        (message,) = backend.receive_message("jobs", 1, 0, 30)
        assert message.receipt_handle is not None
        backend.delete_message("jobs", message.receipt_handle)
        handles.append(message.receipt_handle)
    assert len(queue.deleted_messages) == 50
    backend.delete_message("jobs", handles[-1])  # a consumer's retried delete succeeds, as moto's did
    with pytest.raises(ReceiptHandleIsInvalid):
        backend.delete_message("jobs", handles[0])  # long forgotten, as any unknown handle
    restored = pickle.loads(pickle.dumps(queue.deleted_messages))  # noqa: S301 - as a snapshot keeps it
    restored.update(["later"])  # after a restart, still the latest only: the oldest goes
    assert set(restored) == {*handles[-49:], "later"}


def test_the_guard_refuses_a_moto_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    def receive_message(self: SQSBackend, *args: Any) -> list[Any]:
        return []

    monkeypatch.setattr(SQSBackend, "receive_message", receive_message)
    with pytest.raises(RuntimeError, match=r"SQSBackend\.receive_message"):
        moto_sqs.check_internals()


def _later(seconds: float, action: Callable[[], object]) -> Any:
    import threading

    thread = threading.Timer(seconds, action)
    thread.start()
    return thread
