"""Event source mappings: feed SQS messages and DynamoDB stream records to worker functions.

Each pump serves one `Type: SQS` / `Type: DynamoDB` event of a function with the template's
BatchSize, MaximumBatchingWindowInSeconds and FunctionResponseTypes. A stream pump delivers one
batch at a time (Lambda does per shard); an SQS pump runs as many batches at once as the event's
ScalingConfig MaximumConcurrency allows, at most LOCAL_MAX_CONCURRENCY on one machine, and one
where the template sets none (Lambda would scale those much further). Pumps fail the way Lambda
fails:
- SQS: a raised error fails the whole batch; with ReportBatchItemFailures only the reported
  messages fail. A failed message stays in flight until its visibility timeout has passed on
  the runtime's clock, then comes back; the queue's redrive policy moves it to the DLQ after
  maxReceiveCount receives (moto does that on receive).
- Streams: an idle pump waits for its table's next stream record (the emulator wakes it), so a
  record is read as it is written. A failed batch is retried from the first failed record (the reported
  SequenceNumber, or the batch's first record), in order, until it succeeds. Records that the
  event's FilterCriteria drops are never delivered, as with Lambda (devtools/local/lambda_filters.py).
A batch of a mapping with a batching window waits for the prompt mappings' batches to pause (at
most 2 s past its window; activity.py says why), then takes what came meanwhile too.
"""

from __future__ import annotations

import base64
import logging
import math
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol, TypeVar

from botocore.exceptions import ClientError

from devtools.local.activity import Activity
from devtools.local.background import PUMP_ROOT
from devtools.local.cloudformation import REGION, Resolver
from devtools.local.emulator import Emulator, StreamIteratorExpired, StreamTrimmed
from devtools.local.functions import LocalFunction, event_enabled
from devtools.local.lambda_filters import RecordFilter, UnsupportedFilterError
from postline.shared.ports import Clock

logger = logging.getLogger(__name__)
Item = TypeVar("Item")
REPORT_FAILURES = "ReportBatchItemFailures"
_SQS_MAX_RECEIVE = 10  # messages per ReceiveMessage call
_SQS_MAX_BATCH = 10  # entries per DeleteMessageBatch call
# An idle pump waits inside the emulator for as long as SQS allows: a quiet runtime makes a request
# per pump every 20 s, not every second. stop() ends the waits at once (Emulator.wake).
_LONG_POLL_SECONDS = 20
_WAKE_AGAIN_SECONDS = 0.5  # how often stop() wakes the polls again while a pump still runs
_WINDOW_POLL_SECONDS = 0.1  # how often a batching window looks for more
# An idle stream pump waits for its table's next stream record (the emulator answers at once when
# one is written), at most this long at a time.
_STREAM_WAIT_SECONDS = 20.0
_IDLE_PAGE = 1000  # records a look for unread work reads at a time
_MAX_VISIBILITY_SECONDS = 43_200  # SQS limit on a message's total visibility timeout
LOCAL_MAX_CONCURRENCY = 4  # concurrent batches of one SQS event at most, on a laptop


class Consumer(Protocol):
    """What a pump feeds: a template function (LocalFunction), or a task run in-process (the relay)."""

    @property
    def logical_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    def invoke(self, event: Any) -> Any: ...


@dataclass(frozen=True)
class BatchSettings:
    function: Consumer
    batch_size: int
    window_seconds: float
    report_failures: bool
    concurrency: int = 1  # batches at once

    @classmethod
    def of(cls, function: Consumer, props: dict[str, Any], default_batch_size: int) -> BatchSettings:
        scaling = props.get("ScalingConfig") or {}
        return cls(
            function=function,
            batch_size=int(props.get("BatchSize", default_batch_size)),
            window_seconds=float(props.get("MaximumBatchingWindowInSeconds", 0)),
            report_failures=REPORT_FAILURES in (props.get("FunctionResponseTypes") or []),
            concurrency=min(int(scaling.get("MaximumConcurrency", 1)), LOCAL_MAX_CONCURRENCY),
        )


class Pump(ABC):
    """Background threads (one per concurrent batch) that poll until stopped; errors are logged and
    polling goes on."""

    def __init__(self, name: str, activity: Activity, concurrency: int = 1) -> None:
        self.name = name
        self._activity = activity
        self._stopping = threading.Event()
        thread_name = f"{PUMP_ROOT}{name}"  # its requests wait for callers' in the emulator
        self._threads = [
            threading.Thread(target=self._run, name=thread_name, daemon=True) for _ in range(max(concurrency, 1))
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    @staticmethod
    def stop_all(pumps: Sequence[Pump], wake: Callable[[], None] | None = None) -> None:
        """Signals every pump, then `wake` ends the long polls they may be inside until every
        thread has ended: a pump that checked its signal just before it was set may start its poll
        after a wake, and would wait out the poll's 20 s."""
        for pump in pumps:
            pump._stopping.set()
        threads = [thread for pump in pumps for thread in pump._threads]
        while wake is not None and any(thread.is_alive() for thread in threads):
            try:
                wake()
            except OSError as error:  # the emulator is gone: its polls ended with it
                logger.debug("could not wake the pumps' long polls: %s", error)
                break
            again = time.monotonic() + _WAKE_AGAIN_SECONDS
            for thread in threads:
                thread.join(max(again - time.monotonic(), 0))
        for thread in threads:
            thread.join()

    def _deferred(self, settings: BatchSettings, batch: list[Item], more: Callable[[int], list[Item]]) -> None:
        """A batch of a mapping with a batching window waits for the prompt batches to pause
        (Activity.deferred_turn), then takes what came meanwhile (`more(room)`), up to BatchSize."""
        if not settings.window_seconds:
            return
        self._activity.deferred_turn(self._stopping)
        if len(batch) < settings.batch_size:
            batch += more(settings.batch_size - len(batch))

    @abstractmethod
    def idle(self) -> bool:
        """True when nothing is waiting to be delivered now (checked against the emulator)."""

    @abstractmethod
    def _poll(self) -> None:
        """Delivers at most one batch."""

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._poll()
            except Exception:
                logger.exception("%s: polling failed", self.name)
                self._stopping.wait(1)


def gather(
    fetch: Callable[[int], list[Item]],
    settings: BatchSettings,
    stopping: threading.Event,
    first: Callable[[int], list[Item]] | None = None,
) -> list[Item]:
    """Up to BatchSize items: what one fetch (`first`, which may wait for them) finds, then more
    until the batching window closes."""
    batch = (first or fetch)(settings.batch_size)
    deadline = time.monotonic() + settings.window_seconds
    while batch and len(batch) < settings.batch_size and not stopping.is_set():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        more = fetch(settings.batch_size - len(batch))
        batch.extend(more)
        if not more:
            stopping.wait(min(remaining, _WINDOW_POLL_SECONDS))
    return batch


def failed_items(settings: BatchSettings, event: dict[str, Any], identifiers: Sequence[str]) -> list[str]:
    """Invokes the function on a batch; returns the identifiers of the items that failed."""
    try:
        response = settings.function.invoke(event)
    except Exception:
        logger.warning("%s failed on a batch of %d", settings.function.name, len(identifiers), exc_info=True)
        return list(identifiers)
    if not settings.report_failures or not isinstance(response, dict):
        return []
    failed = [item.get("itemIdentifier") for item in response.get("batchItemFailures") or []]
    if any(identifier not in identifiers for identifier in failed):
        # Lambda treats a missing or unknown itemIdentifier as a failure of the whole batch.
        return list(identifiers)
    return [str(identifier) for identifier in failed]


@dataclass(frozen=True)
class _Parked:
    receipt_handle: str
    due: datetime


class SqsPump(Pump):
    def __init__(
        self,
        settings: BatchSettings,
        sqs: Any,
        queue_url: str,
        queue_arn: str,
        clock: Clock,
        activity: Activity,
    ) -> None:
        super().__init__(
            f"{settings.function.logical_id} <- {queue_arn.rsplit(':', 1)[-1]}", activity, settings.concurrency
        )
        self._settings = settings
        self._sqs = sqs
        self._queue_url = queue_url
        self._queue_arn = queue_arn
        self._clock = clock
        attributes = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["VisibilityTimeout"])
        self._visibility = timedelta(seconds=int(attributes["Attributes"]["VisibilityTimeout"]))
        self._parked: dict[str, _Parked] = {}  # message id -> failed message waiting for the clock
        self._lock = threading.Lock()

    @property
    def queue_name(self) -> str:
        return self._queue_url.rsplit("/", 1)[-1]

    def idle(self, depth: tuple[int, int] | None = None) -> bool:
        """`depth`: the queue's (receivable, in flight) counts when the caller has them
        (Emulator.queue_depths, one request for every queue); else they are asked for."""
        if depth is None:
            attributes = self._sqs.get_queue_attributes(
                QueueUrl=self._queue_url,
                AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
            )["Attributes"]
            depth = (
                int(attributes["ApproximateNumberOfMessages"]),
                int(attributes["ApproximateNumberOfMessagesNotVisible"]),
            )
        visible, in_flight = depth
        with self._lock:
            parked = len(self._parked)
        # Failed messages waiting out their visibility timeout are due later, not pending now.
        return visible == 0 and in_flight <= parked

    def fire_due(self, now: datetime) -> None:
        """Makes failed messages visible again once their visibility timeout has passed."""
        with self._lock:
            due = {mid: parked for mid, parked in self._parked.items() if parked.due <= now}
        for message_id, parked in due.items():
            with self._activity.working():
                try:
                    self._sqs.change_message_visibility(
                        QueueUrl=self._queue_url, ReceiptHandle=parked.receipt_handle, VisibilityTimeout=0
                    )
                except ClientError as error:  # received again meanwhile, or deleted: nothing to release
                    logger.debug("%s: could not release %s: %s", self.name, message_id, error)
                with self._lock:
                    self._parked.pop(message_id, None)

    def _poll(self) -> None:
        # The first receive long-polls; the batching window's look for more does not wait.
        messages = gather(partial(self._receive, wait=0), self._settings, self._stopping, first=self._receive)
        if not messages:
            return
        self._deferred(self._settings, messages, partial(self._receive, wait=0))
        received_at = self._clock.now()
        self._activity.pipeline_turn(self._stopping)
        with self._activity.working(prompt=not self._settings.window_seconds):
            event = {"Records": [self._record(message) for message in messages]}
            ids = [message["MessageId"] for message in messages]
            failed = set(failed_items(self._settings, event, ids))
            for message in messages:
                if message["MessageId"] in failed:
                    self._park(message, received_at + self._visibility)
            self._delete([message for message in messages if message["MessageId"] not in failed])

    def _delete(self, messages: list[dict[str, Any]]) -> None:
        """Deletes a batch's processed messages as Lambda's poller does: DeleteMessageBatch, ten at a time.
        One it could not delete comes back after its visibility timeout (delivery is at least once)."""
        for start in range(0, len(messages), _SQS_MAX_BATCH):
            chunk = messages[start : start + _SQS_MAX_BATCH]
            entries = [{"Id": str(index), "ReceiptHandle": m["ReceiptHandle"]} for index, m in enumerate(chunk)]
            answer = self._sqs.delete_message_batch(QueueUrl=self._queue_url, Entries=entries)
            for failure in answer.get("Failed", []):
                logger.warning("%s: could not delete a processed message: %s", self.name, failure)

    def _receive(self, count: int, wait: int | None = None) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self._sqs.receive_message(
            QueueUrl=self._queue_url,
            MaxNumberOfMessages=min(count, _SQS_MAX_RECEIVE),
            WaitTimeSeconds=_LONG_POLL_SECONDS if wait is None else wait,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        with self._lock:
            for message in messages:  # back before the clock released it (its visibility ran out)
                self._parked.pop(message["MessageId"], None)
        return messages

    def _park(self, message: dict[str, Any], due: datetime) -> None:
        """Keeps a failed message in flight until the runtime's clock reaches `due`.

        Its real visibility timeout is stretched to the SQS maximum so that only the (movable)
        clock decides when it comes back: a test can advance the clock past a 30-minute timeout.
        """
        age = time.time() - int(message["Attributes"]["SentTimestamp"]) / 1000
        stretch = math.floor(_MAX_VISIBILITY_SECONDS - age) - 1
        if stretch > 0:
            self._sqs.change_message_visibility(
                QueueUrl=self._queue_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=stretch
            )
        with self._lock:
            self._parked[message["MessageId"]] = _Parked(message["ReceiptHandle"], due)

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": {
                name: _lambda_message_attribute(value) for name, value in message.get("MessageAttributes", {}).items()
            },
            "md5OfBody": message["MD5OfBody"],
            "eventSource": "aws:sqs",
            "eventSourceARN": self._queue_arn,
            "awsRegion": REGION,
        }


def _lambda_message_attribute(value: dict[str, Any]) -> dict[str, Any]:
    """SQS's {"StringValue", "DataType"} as Lambda spells it: {"stringValue", "dataType", ...}."""
    attribute: dict[str, Any] = {"stringListValues": [], "binaryListValues": [], "dataType": value["DataType"]}
    if "StringValue" in value:
        attribute["stringValue"] = value["StringValue"]
    if "BinaryValue" in value:
        attribute["binaryValue"] = base64.b64encode(value["BinaryValue"]).decode()
    return attribute


class StreamPump(Pump):
    def __init__(
        self,
        settings: BatchSettings,
        streams: Any,
        stream_arn: str,
        starting_position: str,
        activity: Activity,
        record_filter: RecordFilter,
        wait_for_writes: Callable[[int, float], int],
        read_records: Callable[[str, int, str | None], dict[str, Any]],
        register: Callable[[str, str | None], str | None],
        resume: dict[str, str] | None = None,
    ) -> None:
        """`read_records`: (shard iterator, limit, the last record this pump delivered) ->
        GetRecords' answer in its JSON form (Emulator.stream_records, which tells the emulator how
        far this pump has read). `register`: (shard, the last record delivered) -> the last record
        the emulator knows this pump delivered while it keeps it (Emulator.stream_consumer): the
        emulator trims what every registered pump has read. `resume`: the checkpoints of this pump
        before a restart of a restored emulator; a shard without one is read from its start (the
        pump existed all along, it had not seen it yet)."""
        super().__init__(f"{settings.function.logical_id} <- {stream_arn.split('/')[1]} stream", activity)
        self.key = f"{settings.function.logical_id} {stream_arn}"  # names its checkpoints in snapshots
        # (records seen, timeout) -> records written: returns once the table's stream has more.
        self._wait_for_writes = wait_for_writes
        self._read_records = read_records
        self._writes_seen = 0
        self._settings = settings
        self._filter = record_filter
        self._streams = streams
        self._stream_arn = stream_arn
        shards = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]
        self._shards = [shard["ShardId"] for shard in shards]
        # shard -> sequence number of the last record delivered. The emulator's answer may be ahead
        # of the snapshot's (acknowledged after the document was taken), or gone (trimmed after
        # 24 hours: read on from the oldest record kept, as Lambda does).
        self._checkpoints: dict[str, str] = {}
        for shard in self._shards:
            if (known := register(shard, (resume or {}).get(shard))) is not None:
                self._checkpoints[shard] = known
        self._starting_position = "TRIM_HORIZON" if resume is not None else starting_position
        self._iterators = {shard: self._resumed(shard) for shard in self._shards}
        self._failures: dict[str, int] = {}  # shard -> consecutive failed attempts
        self._lock = threading.Lock()

    def checkpoints(self) -> dict[str, str]:
        with self._lock:
            return dict(self._checkpoints)

    def skip_unread(self) -> list[dict[str, Any]]:
        """Moves past every record written so far, as delivered without being given to the function
        (the bench's acceptance-only sections, whose messages are not to be delivered; call it while
        the pump is held); the records the function would have been given (its filter's)."""
        skipped: list[dict[str, Any]] = []
        for shard in self._shards:
            while True:
                with self._lock:
                    checkpoint = self._checkpoints.get(shard)
                position = ("AFTER_SEQUENCE_NUMBER", checkpoint) if checkpoint else (self._starting_position, None)
                records = self._read_records(self._iterator(shard, *position), 1000, checkpoint)["Records"]
                if not records:
                    break
                skipped += [shaped for shaped in map(self._record, records) if self._filter.passes(shaped)]
                with self._lock:
                    self._checkpoints[shard] = records[-1]["dynamodb"]["SequenceNumber"]
            self._iterators[shard] = self._resumed(shard)
        return skipped

    def _resumed(self, shard: str) -> str:
        """An iterator after the last record delivered, else at the pump's starting position."""
        checkpoint = self._checkpoints.get(shard)
        if checkpoint is not None:
            return self._iterator(shard, "AFTER_SEQUENCE_NUMBER", checkpoint)
        return self._iterator(shard, self._starting_position)

    def idle(self) -> bool:
        """No record the function would be given is unread (records its filter drops are no work:
        a pump waiting for INSERTs leaves them for its next read)."""
        for shard in self._shards:
            with self._lock:
                checkpoint = self._checkpoints.get(shard)
            limit = 1  # the next record first: most often the answer (work, or nothing unread)
            try:
                # The pumps start before anything is written, so the stream's start is where they began.
                iterator: str | None = (
                    self._iterator(shard, "AFTER_SEQUENCE_NUMBER", checkpoint, warn=False)
                    if checkpoint
                    else self._iterator(shard, "TRIM_HORIZON")
                )
                while iterator is not None:
                    page = self._read_records(iterator, limit, checkpoint)
                    if any(self._filter.passes(self._record(record)) for record in page["Records"]):
                        return False
                    iterator = page.get("NextShardIterator") if len(page["Records"]) == limit else None
                    limit = _IDLE_PAGE
            except StreamTrimmed:  # the pump read on and acknowledged meanwhile: look again
                return False
        return True

    def _poll(self) -> None:
        delivered = False
        for shard in self._shards:
            delivered |= self._poll_shard(shard)
        if not delivered and not self._stopping.is_set():
            # A record written since the count was last read wakes this at once: a write between the
            # reads above and this wait finds the count already past what was seen.
            self._writes_seen = self._wait_for_writes(self._writes_seen, _STREAM_WAIT_SECONDS)

    def _poll_shard(self, shard: str) -> bool:
        def fetch(limit: int) -> list[dict[str, Any]]:
            # A stale iterator is replaced and read at once: returning nothing would make the pump
            # wait for the table's next write (up to 20 s) with the records that woke it unread.
            for _ in range(2):
                try:
                    page = self._read_records(self._iterators[shard], limit, self._checkpoints.get(shard))
                except StreamTrimmed:  # unread for 24 hours: Lambda reads on from the oldest record kept
                    logger.warning("%s: records it had not read were trimmed after 24 hours", self.name)
                    self._iterators[shard] = self._iterator(shard, "TRIM_HORIZON")
                    continue
                except StreamIteratorExpired:  # unused for 15 minutes (a table written rarely)
                    self._iterators[shard] = self._resumed(shard)
                    continue
                self._iterators[shard] = page["NextShardIterator"]
                records: list[dict[str, Any]] = page["Records"]
                return records
            return []

        records = gather(fetch, self._settings, self._stopping)
        if not records:
            return False
        self._deferred(self._settings, records, fetch)
        self._activity.pipeline_turn(self._stopping)
        with self._activity.working(prompt=not self._settings.window_seconds):
            sequence_numbers = [record["dynamodb"]["SequenceNumber"] for record in records]
            passed = [shaped for shaped in map(self._record, records) if self._filter.passes(shaped)]
            failed = (
                failed_items(
                    self._settings,
                    {"Records": passed},
                    [shaped["dynamodb"]["SequenceNumber"] for shaped in passed],
                )
                if passed
                else []
            )
            retry_from = min(failed, key=sequence_numbers.index) if failed else None
            # Dropped records count as delivered: the checkpoint moves past them.
            delivered = sequence_numbers[: sequence_numbers.index(retry_from)] if retry_from else sequence_numbers
            with self._lock:
                if delivered:
                    self._checkpoints[shard] = delivered[-1]
        if retry_from is None:
            self._failures.pop(shard, None)
            # Read on at once after work or a full page; records its filter all dropped, up to the
            # shard's end, are no reason to: the pump waits for the next write it may take.
            return bool(passed) or len(records) >= self._settings.batch_size
        attempts = self._failures[shard] = self._failures.get(shard, 0) + 1
        self._iterators[shard] = self._iterator(shard, "AT_SEQUENCE_NUMBER", retry_from)
        self._stopping.wait(min(0.1 * 2 ** (attempts - 1), 2.0))  # back off like Lambda's retries
        return True

    def _iterator(self, shard: str, position: str, sequence_number: str | None = None, *, warn: bool = True) -> str:
        """Past trimmed records, reads on from the oldest kept (as Lambda does after 24 hours), with a
        warning unless `warn` is False (idle(): the pump may have read on and acknowledged meanwhile,
        and it warns itself of records trimmed unread when it reads them)."""
        request = {"StreamArn": self._stream_arn, "ShardId": shard, "ShardIteratorType": position}
        if sequence_number is not None:
            request["SequenceNumber"] = sequence_number
        try:
            iterator: str = self._streams.get_shard_iterator(**request)["ShardIterator"]
        except ClientError as error:
            if error.response["Error"]["Code"] != "TrimmedDataAccessException":
                raise
            if warn:
                logger.warning("%s: records it had not read were trimmed after 24 hours", self.name)
            oldest = {"StreamArn": self._stream_arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}
            iterator = self._streams.get_shard_iterator(**oldest)["ShardIterator"]
        return iterator

    def _record(self, record: dict[str, Any]) -> dict[str, Any]:
        """A record as Lambda delivers it: GetRecords' JSON form, with its stream's ARN and the
        creation time in whole seconds."""
        data = dict(record["dynamodb"])
        created = data.get("ApproximateCreationDateTime")
        if created is not None:
            data["ApproximateCreationDateTime"] = int(created)
        return {**record, "dynamodb": data, "eventSourceARN": self._stream_arn}


def _read_records(emulator: Emulator, consumer: str, iterator: str, limit: int, read: str | None) -> dict[str, Any]:
    return emulator.stream_records(iterator, limit, consumer, read)


def _register(emulator: Emulator, stream_arn: str, consumer: str, shard: str, read: str | None) -> str | None:
    return emulator.stream_consumer(stream_arn, shard, consumer, read)


def event_source_pumps(
    functions: Iterable[LocalFunction],
    resolver: Resolver,
    emulator: Emulator,
    clock: Clock,
    activity: Activity,
    checkpoints: dict[str, dict[str, str]] | None = None,
) -> list[Pump]:
    """One pump per enabled `Type: SQS` and `Type: DynamoDB` event, with Lambda's default batch sizes.
    `checkpoints`: the stream pumps' positions when the emulator was restored (None: a fresh one)."""
    pumps: list[Pump] = []
    for function in functions:
        for event in function.events.values():
            props = event.get("Properties") or {}
            if "FilterCriteria" in props and event.get("Type") != "DynamoDB":
                raise UnsupportedFilterError(f"{function.logical_id}: FilterCriteria is applied to streams only here")
            if event.get("Type") == "SQS" and event_enabled(props):
                queue_arn = resolver.resolve(props["Queue"])
                settings = BatchSettings.of(function, props, default_batch_size=10)
                sqs = emulator.client("sqs")
                pumps.append(SqsPump(settings, sqs, emulator.queue_url(queue_arn), queue_arn, clock, activity))
            elif event.get("Type") == "DynamoDB" and event_enabled(props):
                settings = BatchSettings.of(function, props, default_batch_size=100)
                streams = emulator.client("dynamodbstreams")
                position = props.get("StartingPosition", "TRIM_HORIZON")
                record_filter = RecordFilter.of(props.get("FilterCriteria"))
                stream_arn = resolver.resolve(props["Stream"])
                table = stream_arn.split("/")[1]  # arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>
                # A pump whose filter passes INSERTs only waits for one (not for an update it would drop).
                wait = partial(emulator.stream_writes, table, inserts=record_filter.inserts_only)
                consumer = f"{function.logical_id} {stream_arn}"
                resume = None if checkpoints is None else checkpoints.get(consumer, {})
                pumps.append(
                    StreamPump(
                        settings,
                        streams,
                        stream_arn,
                        position,
                        activity,
                        record_filter,
                        wait,
                        partial(_read_records, emulator, consumer),
                        partial(_register, emulator, stream_arn, consumer),
                        resume,
                    )
                )
    return pumps
