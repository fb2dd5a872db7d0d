"""DynamoDB Streams' retention in the emulator: a stream keeps what its consumers have not all read,
and nothing older than 24 hours; a shard iterator lives 15 minutes.

Why: moto keeps every stream record it writes, and every shard iterator it hands out, for as long as
the process lives. A `make run` left running grew without end (3.4 GB after a 100,000-member list
send, the records' full item images, each read once by every consumer and never again). DynamoDB
Streams keeps a record 24 hours, then trims it, and expires an iterator 15 minutes after it is
returned.

How: a stream's consumers (the runtime's stream pumps) register with the emulator,
`POST /_postline/stream-consumers {"table", "shard", "consumer", "read"}`, and say how far they have
read with each GetRecords (headers `x-postline-consumer` and `x-postline-read`: the sequence number
of the last record delivered). Records that every registered consumer has read are trimmed at once;
a stream without a registered consumer keeps its records for 24 hours. Records older than 24 hours
on the runtime's movable clock (`POST /_postline/clock {"now": epoch seconds}`; each record is
stamped with that clock as it is written) are trimmed whoever has read them, as AWS does, once they
have also been in the stream 10 minutes of real time (`POSTLINE_STREAM_TRIM_GRACE_SECONDS`): a test
that moves the clock two days ahead must not take records the pumps have not had the time to read.

A trim removes records from the front of the shard's list and moves its
`starting_sequence_number` up by as many, so moto's own rules keep working: a record's sequence
number never changes, TRIM_HORIZON starts at the oldest record kept, LATEST after the newest, and
DescribeStream's shard starts at the oldest record kept. What AWS answers for trimmed data is
answered too: GetShardIterator AT_SEQUENCE_NUMBER (or AFTER_SEQUENCE_NUMBER) a record whose next
read would be trimmed, and GetRecords with an iterator whose position has since been trimmed,
raise TrimmedDataAccessException; an iterator older than 15 minutes (real time: moving the clock
does not expire the pumps' iterators) or unknown raises ExpiredIteratorException (moto answered a
500 for an unknown one).

The consumers' positions live on the shard (`postline_reads`), so a snapshot keeps them with the
records; a consumer registering again gets the furthest of its own position and the one kept, and
resumes from there (its checkpoint in the runtime's snapshot document may be a batch behind what
it acknowledged before the emulator's state was written, and those records may be gone).

Everything here runs under the emulator's one-DynamoDB-request-at-a-time lock (GetRecords and
GetShardIterator are DynamoDB Streams requests; the registration path is locked as they are), and
never inside a transaction (moto_transactions.py restores a stream's length on a rollback).

Guard: `install()` checks that moto still numbers records by their index from the shard's
`starting_sequence_number`, stamps them with `utcnow()`, starts TRIM_HORIZON at that number and
LATEST past the list, and keeps its iterators in `shard_iterators`; and raises otherwise.
"""

from __future__ import annotations

import bisect
import json
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from moto.core.exceptions import JsonRESTError
from moto.dynamodb.models.table import StreamRecord, StreamShard
from moto.dynamodbstreams.models import DynamoDBStreamsBackend, ShardIterator, dynamodbstreams_backends

from devtools.moto_patches import stream_writes
from devtools.moto_patches.guarded import GuardedPatch, Replacement

RETENTION_SECONDS = 24 * 3600  # DynamoDB Streams keeps a record 24 hours
ITERATOR_LIFETIME_ENV = "POSTLINE_STREAM_ITERATOR_SECONDS"  # tests shorten both
iterator_lifetime_seconds = float(os.environ.get(ITERATOR_LIFETIME_ENV, str(15 * 60)))  # AWS: 15 minutes
CONSUMER_HEADER = "x-postline-consumer"  # on GetRecords: who reads
READ_HEADER = "x-postline-read"  # and the sequence number of the last record it has read
_AT, _AFTER = "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"

# A record is trimmed by age only once it has also been in the stream this long in real time: moving
# the clock a day ahead does not take records the pumps have not yet had the time to read.
GRACE_ENV = "POSTLINE_STREAM_TRIM_GRACE_SECONDS"
grace_seconds = float(os.environ.get(GRACE_ENV, "600"))
_offset = 0.0  # seconds the runtime's clock is ahead of real time (it only moves forward)
_offset_lock = threading.Lock()
# (made at, backend, iterator ARN), oldest first: the iterators to expire, in the order made.
_made: deque[tuple[float, DynamoDBStreamsBackend, str]] = deque()


class TrimmedDataAccess(JsonRESTError):
    def __init__(self) -> None:
        super().__init__(
            "TrimmedDataAccessException",
            "The operation attempted to read past the oldest stream record in a shard.",
        )


class ExpiredIterator(JsonRESTError):
    def __init__(self) -> None:
        super().__init__("ExpiredIteratorException", "The shard iterator has expired and can no longer be used.")


def now() -> float:
    """The runtime's clock, as the emulator knows it: epoch seconds."""
    return time.time() + _offset


def set_clock(movable_now: float) -> None:
    """The runtime's clock reads `movable_now`: records are stamped, and age, on it from here on."""
    global _offset
    with _offset_lock:
        _offset = max(_offset, movable_now - time.time())  # never back: stamps stay in order


def _written(record: StreamRecord) -> float:
    """When moto wrote the record, in real time (moto's naive UTC datetime)."""
    written: datetime = record.record["dynamodb"]["ApproximateCreationDateTime"]
    return written.replace(tzinfo=UTC).timestamp()


def _stamp(record: StreamRecord) -> float:
    """When the record was written on the runtime's clock."""
    stamped: float | None = getattr(record, "postline_at", None)
    return _written(record) if stamped is None else stamped  # None: a snapshot's, from before the patch


def _stream_record_init(self: StreamRecord, *args: Any, **kwargs: Any) -> None:
    _PATCH.original(_RECORD_INIT)(self, *args, **kwargs)
    setattr(self, "postline_at", now())  # noqa: B010 - an attribute moto's class does not declare


def _reads(shard: StreamShard) -> dict[str, int]:
    """consumer -> sequence number of the last record it has read (one before the shard's
    start when it has read nothing), kept on the shard: a snapshot keeps it with the records."""
    reads: dict[str, int] | None = getattr(shard, "postline_reads", None)
    if reads is None:
        reads = {}
        setattr(shard, "postline_reads", reads)  # noqa: B010 - an attribute moto's class does not declare
    return reads


def trim(shard: StreamShard) -> int:
    """Drops the records every registered consumer has read and those past retention; how many."""
    items = shard.items
    start = shard.starting_sequence_number
    read_by_all = 0
    if reads := _reads(shard):
        read_by_all = max(0, min(min(reads.values()) - start + 1, len(items)))
    cutoff, real_cutoff = now() - RETENTION_SECONDS, time.time() - grace_seconds
    aged = 0
    if items and _stamp(items[0]) < cutoff and _written(items[0]) < real_cutoff:
        aged = min(bisect.bisect_left(items, cutoff, key=_stamp), bisect.bisect_left(items, real_cutoff, key=_written))
    count = max(read_by_all, aged)
    if count:
        del items[:count]
        shard.starting_sequence_number = start + count
    return count


def acknowledge(shard: StreamShard, consumer: str, read: int | None) -> int | None:
    """`consumer` has read the shard up to the record numbered `read` (None: nothing yet), and
    registers when new. Answers, after a trim, the last record it is known to have read while that
    record is still kept (the furthest of `read` and what it said before), else None: it reads on
    from the oldest record kept."""
    reads = _reads(shard)
    before_start = shard.starting_sequence_number - 1
    known = max(reads.get(consumer, before_start), before_start if read is None else read)
    reads[consumer] = known
    trim(shard)
    return known if known >= shard.starting_sequence_number else None


def _shard_of(backend: DynamoDBStreamsBackend, stream_arn: str, shard_id: str) -> StreamShard:
    shard = backend._get_table_from_arn(stream_arn).stream_shard
    if shard is None or shard.id != shard_id:
        raise JsonRESTError("ResourceNotFoundException", f"no shard {shard_id} in the stream {stream_arn}")
    return shard


def _expire_iterators(backend_now: float) -> None:
    while _made and backend_now - _made[0][0] > iterator_lifetime_seconds:
        _, backend, arn = _made.popleft()
        backend.shard_iterators.pop(arn, None)


def _made_now(backend: DynamoDBStreamsBackend, arn: str) -> None:
    made = time.monotonic()
    _made.append((made, backend, arn))
    _expire_iterators(made)


def _get_shard_iterator(
    self: DynamoDBStreamsBackend, arn: str, shard_id: str, shard_iterator_type: str, sequence_number: int | None = None
) -> ShardIterator:
    table = self._get_table_from_arn(arn)
    if table.stream_shard is not None:
        trim(table.stream_shard)
        if shard_iterator_type in (_AT, _AFTER) and sequence_number is not None:
            position = sequence_number + (1 if shard_iterator_type == _AFTER else 0)
            if position < table.stream_shard.starting_sequence_number:
                raise TrimmedDataAccess()
    iterator: ShardIterator = _PATCH.original(_GET_SHARD_ITERATOR)(
        self, arn, shard_id, shard_iterator_type, sequence_number
    )
    _made_now(self, iterator.arn)
    return iterator


def _get_records(self: DynamoDBStreamsBackend, iterator_arn: str, limit: int) -> dict[str, Any]:
    _expire_iterators(time.monotonic())
    iterator = self.shard_iterators.get(iterator_arn)
    if iterator is None:
        raise ExpiredIterator()
    trim(iterator.stream_shard)
    if iterator.sequence_number < iterator.stream_shard.starting_sequence_number:
        raise TrimmedDataAccess()
    result: dict[str, Any] = _PATCH.original(_GET_RECORDS)(self, iterator_arn, limit)
    _made_now(self, result["NextShardIterator"])
    return result


def acknowledged_read(backend: DynamoDBStreamsBackend, iterator_arn: str, headers: Any) -> None:
    """A GetRecords whose headers name its consumer and how far it has read: noted before the read
    (stream_reads.py calls this with the request's headers)."""
    consumer, read = headers.get(CONSUMER_HEADER), headers.get(READ_HEADER)
    iterator = backend.shard_iterators.get(iterator_arn)
    if consumer and iterator is not None:
        acknowledge(iterator.stream_shard, consumer, int(read) if read else None)


def wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`, plus `POST <path> {"stream": ARN, "shard": ID, "consumer": NAME, "read": SEQ or null}`:
    a consumer registers, with how far it has read; answers {"read": SEQ or null} (acknowledge).
    With `"forget": true` the consumer is no longer waited for."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != path:
            return app(environ, start_response)  # type: ignore[no-any-return]
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
            body = json.loads(environ["wsgi.input"].read(length))
            stream, read = str(body["stream"]), body.get("read")
            _, _, _, region, account, _ = stream.split(":", 5)
            backend = dynamodbstreams_backends[account][region]
            shard = _shard_of(backend, stream, str(body["shard"]))
            if body.get("forget"):
                _reads(shard).pop(str(body["consumer"]), None)
                trim(shard)
                known = None
            else:
                known = acknowledge(shard, str(body["consumer"]), None if read is None else int(read))
        except (KeyError, ValueError, TypeError, AttributeError, IndexError):
            expected = 'expected {"stream", "shard", "consumer", "read"}'
            return _answer(start_response, "400 Bad Request", {"error": expected})
        except JsonRESTError as error:
            return _answer(start_response, "404 Not Found", {"error": error.message})
        return _answer(start_response, "200 OK", {"read": None if known is None else str(known)})

    return serve


def clock_wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`, plus `POST <path> {"now": epoch seconds}`: the runtime's clock."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != path:
            return app(environ, start_response)  # type: ignore[no-any-return]
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
            set_clock(float(json.loads(environ["wsgi.input"].read(length))["now"]))
        except (KeyError, ValueError, TypeError):
            return _answer(start_response, "400 Bad Request", {"error": 'expected {"now": epoch seconds}'})
        return _answer(start_response, "200 OK", {"now": now()})

    return serve


def _answer(start_response: Callable[..., Any], status: str, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return [data]


def _forget() -> None:
    global _offset
    _made.clear()
    _offset = 0.0


_RECORD_INIT = Replacement(StreamRecord, "__init__", _stream_record_init)
_GET_SHARD_ITERATOR = Replacement(DynamoDBStreamsBackend, "get_shard_iterator", _get_shard_iterator)
_GET_RECORDS = Replacement(DynamoDBStreamsBackend, "get_records", _get_records)
_PATCH = GuardedPatch(
    "devtools/moto_patches/stream_trims.py",
    [_RECORD_INIT, _GET_SHARD_ITERATOR, _GET_RECORDS],
    {  # what it relies on, as moto 5.2.5 writes it
        "StreamShard.add": (
            stream_writes.moto_add,
            ("seq = len(self.items) + self.starting_sequence_number", "self.items.append(StreamRecord("),
        ),
        "StreamShard.get": (
            lambda: StreamShard.get,
            ("start -= self.starting_sequence_number", "self.items[start:end]"),
        ),
        "StreamRecord.__init__": (lambda: StreamRecord.__init__, ('"ApproximateCreationDateTime": utcnow(),',)),
        "ShardIterator.__init__": (
            lambda: ShardIterator.__init__,
            (
                "self.sequence_number = stream_shard.starting_sequence_number",
                "self.sequence_number = stream_shard.starting_sequence_number + len(",
            ),
        ),
        "ShardIterator.get": (
            lambda: ShardIterator.get,
            ("self.streams_backend.shard_iterators[new_shard_iterator.arn] = (",),
        ),
        "DynamoDBStreamsBackend.get_records": (
            lambda: DynamoDBStreamsBackend.get_records,
            ("shard_iterator = self.shard_iterators[iterator_arn]", "return shard_iterator.get(limit)"),
        ),
        "DynamoDBStreamsBackend.get_shard_iterator": (
            lambda: DynamoDBStreamsBackend.get_shard_iterator,
            ("self.shard_iterators[shard_iterator.arn] = shard_iterator", "return shard_iterator"),
        ),
    },
    on_uninstall=_forget,
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
