"""The end-to-end batch: a test-key POST /v3/messages.batch until its last recipient is delivered.

The simulator (test keys) delivers, so the figure is the pipeline's own: acceptance, the send
queue, the dispatcher's storage calls per message, and each recipient's record with its events.
The wait watches the botocore recorder (in this process, free): the dispatcher records each
recipient's outcome in one conditional UpdateItem of the message (its events follow it). Then
"delivered" is read back from the events (GET /v3/events?event=delivered&tag=...), and the last
one's timestamp (the runtime's clock, as the request's start) dates it. Polling the events API
instead would itself cost more as the batch grows: its total_count counts the tag's whole
partition, under the emulator's DynamoDB lock.
The dispatcher's AWS calls are counted per message from the same recorder (calls on the send
queue's pump thread).

The pipeline runs throughout, as it does for a user: the dispatcher starts on the batch's first
messages while the API call is still writing the rest. In the embedded runtime they share one
interpreter and one emulator; the pipeline lets the API call go first (devtools/local/activity.py,
background.py), so a 5,000-recipient batch is accepted well inside API Gateway's 29 s.

`meanwhile`: a second, smaller batch posted a second after the first was accepted, while the
pipeline delivers it. Its acceptance time against the same size accepted on an idle pipeline shows
whether the API waits for the pipeline in the emulator (it should not: devtools/local/background.py).
It is queued behind the first batch, so it barely moves the first batch's last delivery.

CPU per message: the CPU time this process (API, pumps, handlers, the bench's own polling) and the
emulator's process used from the API call to the last delivery, over the messages delivered. Unlike
messages/s it hardly moves with what else the machine runs, and the two processes' sum caps the
rate two cores can reach (each process is one interpreter, so neither can use more than one core).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bench.api import ApiClient
from bench.recorder import CallRecorder, call_mix
from devtools.local.runtime import Runtime

DISPATCHER_THREAD = "pump DispatcherFunction"
_POLL_SECONDS = 0.25
_RECORD = "dynamodb.UpdateItem"  # one per recipient's outcome (the one that sets its attempt)
_RECORD_MARK = "attempts.#r"  # in a record's UpdateExpression (a claim or a release has none)
_MEANWHILE_AFTER_SECONDS = 1.0  # the dispatcher is busy with the first batch by then


@dataclass(frozen=True)
class EndToEnd:
    recipients: int
    accept_seconds: float  # the API call
    seconds: float  # the API call's start to the last delivered event
    per_second: float  # delivered messages a second, over `seconds`
    dispatcher_calls_per_message: dict[str, float]  # AWS operation -> calls per delivered message
    meanwhile: int = 0  # recipients of a batch posted while this one was delivering
    meanwhile_accept_seconds: float | None = None
    runtime_cpu_per_message: float | None = None  # seconds of this process's CPU a message
    emulator_cpu_per_message: float | None = None  # seconds of the emulator's
    # Both processes' CPU during the API call, per accepted recipient: with the pipeline running it
    # includes the pipeline's work meanwhile (section c measures acceptance alone).
    accept_cpu_per_recipient: float | None = None


def body(recipients: int, tag: str, sender: str) -> dict[str, Any]:
    return {
        "from": sender,
        "subject": "Your weekly digest",
        "text": "Hello {{ name }}, here is what happened this week.",
        "tags": [tag],
        "recipients": [{"to": f"reader{i}@example.com", "vars": {"name": f"Reader {i}"}} for i in range(recipients)],
    }


def end_to_end(
    runtime: Runtime,
    api: ApiClient,
    recorder: CallRecorder,
    recipients: int,
    sender: str,
    timeout: float,
    meanwhile: int = 0,
) -> EndToEnd:
    tag = f"e2e-{uuid.uuid4().hex[:8]}"
    mark = recorder.mark()
    cpu_before = time.process_time(), runtime.emulator_cpu_seconds()
    started_at = runtime.clock.now()
    accept_seconds, reply = api.post("/v3/messages.batch", body(recipients, tag, sender), expect=202)
    accepted_cpu = time.process_time() - cpu_before[0], runtime.emulator_cpu_seconds()
    if int(reply["accepted"]) != recipients:
        raise RuntimeError(f"the batch accepted {reply['accepted']} of {recipients} recipients")
    meanwhile_seconds = None
    if meanwhile:
        time.sleep(_MEANWHILE_AFTER_SECONDS)
        meanwhile_seconds, _ = api.post("/v3/messages.batch", body(meanwhile, f"{tag}-meanwhile", sender), expect=202)
    deadline = time.monotonic() + timeout
    while _dispatched(recorder, mark) < recipients + meanwhile and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
    while (delivered := _delivered(api, tag)) < recipients:  # a record refused and retried: a little longer
        if time.monotonic() > deadline:
            raise RuntimeError(f"{delivered} of {recipients} delivered after {timeout:.0f} s")
        time.sleep(_POLL_SECONDS * 20)
    seconds = (_last_delivered(api, tag) - started_at).total_seconds()
    messages = recipients + meanwhile
    runtime_cpu = (time.process_time() - cpu_before[0]) / messages
    emulator_after = runtime.emulator_cpu_seconds()
    emulator_cpu = (
        None if emulator_after is None or cpu_before[1] is None else (emulator_after - cpu_before[1]) / messages
    )
    calls = [call for call in recorder.since(mark) if call.thread.startswith(DISPATCHER_THREAD)]
    return EndToEnd(
        recipients=recipients,
        accept_seconds=accept_seconds,
        seconds=seconds,
        per_second=recipients / seconds,
        dispatcher_calls_per_message={name: count / messages for name, count in call_mix(calls).items()},
        meanwhile=meanwhile,
        meanwhile_accept_seconds=meanwhile_seconds,
        runtime_cpu_per_message=runtime_cpu,
        emulator_cpu_per_message=emulator_cpu,
        accept_cpu_per_recipient=(
            None
            if accepted_cpu[1] is None or cpu_before[1] is None
            else (accepted_cpu[0] + accepted_cpu[1] - cpu_before[1]) / recipients
        ),
    )


def _dispatched(recorder: CallRecorder, mark: int) -> int:
    return sum(
        1
        for call in recorder.since(mark)
        if call.name == _RECORD
        and call.thread.startswith(DISPATCHER_THREAD)
        and _RECORD_MARK in call.params.get("UpdateExpression", "")
    )


def _delivered(api: ApiClient, tag: str) -> int:
    _, page = api.get("/v3/events", {"event": "delivered", "tag": tag, "limit": "1"})
    return int(page["total_count"])


def _last_delivered(api: ApiClient, tag: str) -> datetime:
    _, page = api.get("/v3/events", {"event": "delivered", "tag": tag, "limit": "1"})
    return datetime.fromisoformat(page["items"][0]["timestamp"])
