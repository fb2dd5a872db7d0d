"""The AWS emulator: a moto server on loopback, in a child process, and boto3 clients for it.

Why a child process: moto keeps its state in module globals, and an in-process `mock_aws`
(adapter and handler tests, in the same pytest worker as the e2e runtime) resets all of it on
start and stop. In a process of its own, the emulator's tables survive whatever the parent does;
moto's work also runs beside the handlers rather than under the same GIL.

`python -m devtools.local.emulator --port N` is that child: it prints its endpoint URL, then
serves until its stdin closes (the parent stopped or died). Before the URL it may print lines
saying what it is doing ("loading ...", "info ...", "warning ...") or why it cannot start
("error ..."), which the parent logs or raises; while it loads a snapshot the parent waits as long
as that takes, which follows the snapshot's size and says nothing of a fault. It ignores Ctrl-C, which the
terminal sends to the whole process group, so the parent can stop its pumps against a live
emulator before closing it.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import io
import json
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
import urllib3

from devtools.local import collector, persistence
from devtools.local.background import BACKGROUND_HEADER, WSGI_KEY, is_background
from devtools.local.cloudformation import ACCOUNT_ID, REGION
from devtools.local.persistence import SnapshotGate

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

# A module whose `wsgi(app)` wraps the emulator's WSGI app, for work that must run inside moto's
# process (the benchmark loads a million items straight into moto's tables). Its requests go to
# paths under EXTENSION_PATH and run one at a time with DynamoDB's.
EXTENSION_ENV = "POSTLINE_EMULATOR_EXTENSION"
EXTENSION_PATH = "/_emulator/"
STATE_PATH = "/_emulator/state"  # snapshots of the emulator's state (persistence.py)
# A long poll answering once a table's stream has more records (devtools/moto_patches/stream_writes.py).
STREAM_WRITES_PATH = "/_postline/stream-writes"
# A stream consumer (a runtime pump) registers, with how far it has read (moto_patches/stream_trims.py).
STREAM_CONSUMERS_PATH = "/_postline/stream-consumers"
# The runtime's movable clock, on which stream records are stamped and kept 24 hours.
CLOCK_PATH = "/_postline/clock"
# One sweep of the items past their TTL on the runtime's clock (devtools/moto_patches/ttl_sweep.py).
TTL_SWEEP_PATH = "/_postline/ttl-sweep"
# Ends every long poll in progress: the runtime's stop (devtools/moto_patches/wakes.py).
WAKE_PATH = "/_postline/wake"
# GetRecords' headers naming a registered consumer and the last record it has read (stream_trims.py).
CONSUMER_HEADER, READ_HEADER = "x-postline-consumer", "x-postline-read"
# How many writes schedules and executions have had: the ticker lists them again only when it grows.
CONTROL_WRITES_PATH = "/_postline/control-writes"
# Many queues' receivable and in-flight counts in one answer (devtools/moto_patches/queue_depths.py).
QUEUE_DEPTHS_PATH = "/_postline/queue-depths"
# How long the pipeline's DynamoDB requests let callers' go first (ForegroundFirstLock).
BACKGROUND_PATIENCE_SECONDS = 0.5
DEFAULT_PORT = 4566  # LocalStack's port, so `aws --endpoint-url` habits and localstack-client work
HOST = "127.0.0.1"
# How long each step of the child's start may take, loading a snapshot aside (it takes what it takes).
START_TIMEOUT_SECONDS = 30.0
# The child's lines before its endpoint URL: "<kind> <message>".
_LOADING, _INFO, _WARNING, _ERROR = "loading", "info", "warning", "error"
_KINDS = (_LOADING, _INFO, _WARNING)  # what the parent logs; _ERROR is the reason it raises
# moto accepts any credentials; real-looking names keep botocore from looking further.
_CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}

logger = logging.getLogger(__name__)


class StreamTrimmed(OSError):
    """GetRecords' TrimmedDataAccessException: the iterator's next record was trimmed (24 hours)."""


class StreamIteratorExpired(OSError):
    """GetRecords' ExpiredIteratorException: the iterator is older than 15 minutes."""


class Emulator:
    def __init__(self, port: int = DEFAULT_PORT, state_file: Path | None = None) -> None:
        self._requested_port = port
        self._state_file = state_file  # restored at start when it exists; snapshots go there
        self._process: subprocess.Popen[str] | None = None
        self._endpoint_url: str | None = None
        self._clients: dict[str, Any] = {}
        self._session: boto3.session.Session | None = None
        self._lock = threading.Lock()
        self._http = urllib3.PoolManager(maxsize=8, retries=False)  # the pumps' long polls, one each

    def start(self) -> None:
        command = [sys.executable, "-m", "devtools.local.emulator", "--port", str(self._requested_port)]
        if self._state_file is not None:
            command += ["--state", str(self._state_file)]
        # glibc gives each thread that allocates concurrently an arena of its own (up to 8 per core),
        # and the server's request threads spread the heap over them, each keeping its freed pages:
        # two arenas bound that. Only a default: a setting in the environment wins; other libcs ignore it.
        environment = {"MALLOC_ARENA_MAX": "2", **os.environ}
        # This interpreter running this package: nothing here comes from outside.
        process = subprocess.Popen(  # noqa: S603
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
        )
        assert process.stdout is not None
        try:
            self._endpoint_url = _endpoint(process, _lines(process.stdout))
        except BaseException:
            process.kill()
            process.wait()
            raise
        self._process = process

    def stop(self) -> None:
        if self._process is None:
            return
        assert self._process.stdin is not None
        self._process.stdin.close()  # the child's signal to shut down
        self._process.wait()
        self._process = self._endpoint_url = None
        self._clients.clear()

    @property
    def endpoint_url(self) -> str:
        if self._endpoint_url is None:
            raise RuntimeError("the emulator is not running")
        return self._endpoint_url

    def cpu_seconds(self) -> float | None:
        """CPU time the emulator's process has used so far (user and system), where /proc tells it."""
        if self._process is None:
            return None
        try:
            fields = Path(f"/proc/{self._process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15

    def environment(self) -> dict[str, str]:
        """What boto3 (in handlers, the CLI, tests) needs to reach the emulator instead of AWS."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": _CREDENTIALS["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": _CREDENTIALS["aws_secret_access_key"],
            "AWS_DEFAULT_REGION": REGION,
            "AWS_REGION": REGION,  # Lambda sets both; Powertools reads AWS_REGION
            # botocore would send DynamoDB Streams calls to an account-id endpoint moto does not serve.
            "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        }

    def client(self, service: str) -> Any:
        """A client bound to the emulator explicitly, whatever the process environment says.

        Cached: botocore clients are thread-safe, and the pumps share them.
        """
        with self._lock:
            if service not in self._clients:
                # One session for all: it caches botocore's data files (endpoints, models), which a
                # session per client parsed again each time.
                if self._session is None:
                    self._session = boto3.session.Session(region_name=REGION, **_CREDENTIALS)
                self._clients[service] = self._session.client(service, endpoint_url=self.endpoint_url)
            return self._clients[service]

    def restored(self) -> dict[str, Any] | None:
        """The document the last snapshot carried, when the emulator started from one."""
        if self._state_file is None:
            return None
        response = self._http.request("GET", self.endpoint_url + STATE_PATH, timeout=START_TIMEOUT_SECONDS)
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} for its restored state: {response.data[:200]!r}")
        restored: dict[str, Any] | None = json.loads(response.data)["restored"]
        return restored

    def snapshot(self, document: dict[str, Any]) -> None:
        """Writes the emulator's state, with `document`, to its state file (between two requests)."""
        response = self._http.request(
            "POST", self.endpoint_url + STATE_PATH, body=json.dumps(document).encode(), timeout=300.0
        )
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} to a snapshot: {response.data[:200]!r}")

    def stream_writes(self, table: str, after: int, timeout: float, *, inserts: bool = False) -> int:
        """How many records (`inserts`: INSERT records) the table's stream has had since the emulator
        started, answered once that is more than `after` or after `timeout` seconds."""
        fields = {"table": table, "after": str(after), "timeout": str(timeout)}
        if inserts:
            fields["kind"] = "insert"
        response = self._http.request(
            "GET",
            self.endpoint_url + STREAM_WRITES_PATH,
            fields=fields,
            timeout=timeout + START_TIMEOUT_SECONDS,
        )
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} to a stream wait: {response.data[:200]!r}")
        return int(response.data)

    def stream_consumer(
        self, stream_arn: str, shard: str, consumer: str, read: str | None, *, forget: bool = False
    ) -> str | None:
        """Registers `consumer` of the stream's shard, which has read up to the record numbered `read`
        (None: nothing yet). Records every registered consumer has read are trimmed. Answers the
        last record it is known to have read while that is kept (None: read on from the oldest).
        `forget`: the consumer is gone, and its records are no longer kept for it."""
        body = {"stream": stream_arn, "shard": shard, "consumer": consumer, "read": read, "forget": forget}
        headers = {"Content-Type": "application/json"}
        if is_background(threading.current_thread().name):
            headers[BACKGROUND_HEADER] = "1"
        response = self._http.request(
            "POST",
            self.endpoint_url + STREAM_CONSUMERS_PATH,
            body=json.dumps(body).encode(),
            headers=headers,
            timeout=START_TIMEOUT_SECONDS,
        )
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} to a stream consumer: {response.data[:200]!r}")
        known: str | None = json.loads(response.data)["read"]
        return known

    def set_clock(self, now: datetime) -> None:
        """The runtime's clock reads `now`: stream records are stamped, and kept 24 hours, on it."""
        response = self._http.request(
            "POST",
            self.endpoint_url + CLOCK_PATH,
            body=json.dumps({"now": now.timestamp()}).encode(),
            timeout=START_TIMEOUT_SECONDS,
        )
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} to the clock: {response.data[:200]!r}")

    def control_writes(self) -> int:
        """How many writes the emulator's schedules and workflow executions have had."""
        response = self._http.request("GET", self.endpoint_url + CONTROL_WRITES_PATH, timeout=START_TIMEOUT_SECONDS)
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} for its control writes: {response.data[:200]!r}")
        return int(response.data)

    def queue_depths(self, names: list[str]) -> dict[str, tuple[int, int]]:
        """Each named queue's (receivable, in flight) message counts, as GetQueueAttributes gives
        ApproximateNumberOfMessages and ApproximateNumberOfMessagesNotVisible, in one request; a
        queue that does not exist is left out."""
        response = self._http.request(
            "GET", self.endpoint_url + QUEUE_DEPTHS_PATH, fields=[("queue", name) for name in names],
            timeout=START_TIMEOUT_SECONDS,
        )  # fmt: skip
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} for queue depths: {response.data[:200]!r}")
        return {name: (counts[0], counts[1]) for name, counts in json.loads(response.data).items()}

    def wake(self) -> None:
        """Ends every long poll in progress (the pumps' SQS receives and stream waits) at once."""
        response = self._http.request("POST", self.endpoint_url + WAKE_PATH, timeout=START_TIMEOUT_SECONDS)
        if response.status != 200:
            raise OSError(f"the emulator answered {response.status} to a wake: {response.data[:200]!r}")

    def stream_records(
        self, shard_iterator: str, limit: int, consumer: str | None = None, read: str | None = None
    ) -> dict[str, Any]:
        """GetRecords as its JSON answer: the records already in the form Lambda delivers them.

        The stream pumps read every record of the events table, three consumers over; through
        boto3 each page was parsed value by value into Python types (bytes, datetimes) and then
        turned back into the JSON form Lambda events carry, a sixth of the runtime's interpreter
        time while a batch delivered. The request is DynamoDB Streams' JSON protocol as boto3 sends
        it; moto checks no signature, and reads the region from the credential scope. `consumer`
        and `read`: a registered consumer (stream_consumer) says how far it has read, so the
        records every consumer has read are trimmed.
        """
        headers = {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDBStreams_20120810.GetRecords",
            "Authorization": f"AWS4-HMAC-SHA256 Credential={_CREDENTIALS['aws_access_key_id']}/20250101/{REGION}"
            "/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
        }
        if is_background(threading.current_thread().name):
            headers[BACKGROUND_HEADER] = "1"
        if consumer is not None:
            headers[CONSUMER_HEADER] = consumer
            if read is not None:
                headers[READ_HEADER] = read
        body = json.dumps({"ShardIterator": shard_iterator, "Limit": limit}).encode()
        response = self._http.request("POST", self.endpoint_url, body=body, headers=headers, timeout=60.0)
        answer: dict[str, Any] = json.loads(response.data)
        if response.status != 200:
            error = str(answer.get("__type", "")).rsplit("#", 1)[-1]
            if error == "TrimmedDataAccessException":
                raise StreamTrimmed(f"GetRecords answered {response.status}: {answer}")
            if error == "ExpiredIteratorException":
                raise StreamIteratorExpired(f"GetRecords answered {response.status}: {answer}")
            raise OSError(f"GetRecords answered {response.status}: {answer}")
        return answer

    def queue_url(self, queue_arn: str) -> str:
        """SQS addresses queues by URL; templates and schedules name them by ARN."""
        name = queue_arn.rsplit(":", 1)[-1]
        url: str = self.client("sqs").get_queue_url(QueueName=name, QueueOwnerAWSAccountId=ACCOUNT_ID)["QueueUrl"]
        return url


def _lines(stream: Iterable[str]) -> queue.Queue[str | None]:
    """The child's output lines as they come, then None at its end (a reader thread's)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, name="emulator-output", daemon=True).start()
    return lines


def _endpoint(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> str:
    """The URL the child prints once it serves. Each step before it may take START_TIMEOUT_SECONDS,
    except loading a snapshot, which takes as long as it takes while the child says how far it is;
    what the child says is logged, and a failure is raised with the child's own reason."""
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    loading = False
    reason = None
    while True:
        try:
            line = lines.get(timeout=None if loading else max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise OSError(f"the AWS emulator did not start within {START_TIMEOUT_SECONDS:g} s") from None
        if line is None:
            status = process.wait()
            raise OSError(
                f"the AWS emulator: {reason}"
                if reason
                else f"the AWS emulator exited with status {status} before it served (its output is above)"
            )
        kind, _, text = line.strip().partition(" ")
        if kind.startswith("http://"):
            return kind
        if kind == _ERROR:
            reason = text
            continue
        loading = kind == _LOADING
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        logger.log(logging.WARNING if kind == _WARNING else logging.INFO, text if kind in _KINDS else line.strip())


def _say(kind: str, message: str) -> None:
    """In the child: one line for the parent, before the endpoint URL."""
    print(kind, " ".join(message.split()), flush=True)


def _cannot_listen(port: int) -> str | None:
    """Why the server could not listen on `port` of HOST, found by binding it as the server will
    (0, any free port, always can)."""
    if port == 0:
        return None
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as werkzeug's server binds
        try:
            probe.bind((HOST, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return f"port {port} of {HOST} is in use"
            return f"cannot listen on {HOST}:{port}: {error.strerror}"
    return None


class ForegroundFirstLock:
    """One holder at a time; a background acquirer lets waiting foreground ones go first, for at
    most `patience` seconds, after which foreground acquirers let it in.

    Strict priority would starve the pipeline for as long as callers keep coming (a 5,000-recipient
    batch keeps eight requests waiting): a dispatcher invocation making twenty calls would run past
    its Lambda timeout. Among foreground acquirers, and among background ones, there is no order."""

    def __init__(self, patience: float = BACKGROUND_PATIENCE_SECONDS) -> None:
        self._patience = patience
        # One lock, a condition per kind of waiter: a release wakes one waiter that may go, not
        # every waiter (notify_all woke them all to re-check and sleep again, on every request:
        # ~6% of the emulator's CPU with webhook events at 200/s, ~20 threads waiting).
        mutex = threading.Lock()
        self._foreground = threading.Condition(mutex)  # callers
        self._patient = threading.Condition(mutex)  # background acquirers within their patience
        self._starved = threading.Condition(mutex)  # background acquirers past it
        self._held = False
        self._foreground_waiting = 0
        self._patient_waiting = 0
        self._background_starved = 0  # background acquirers that have waited out their patience

    @contextmanager
    def held(self, background: bool) -> Iterator[None]:
        with self._foreground:
            try:
                if not background:
                    self._foreground_waiting += 1
                    try:
                        self._foreground.wait_for(lambda: not self._held and not self._background_starved)
                    finally:
                        self._foreground_waiting -= 1
                else:
                    self._patient_waiting += 1
                    try:
                        patient = self._patient.wait_for(
                            lambda: not self._held and not self._foreground_waiting, timeout=self._patience
                        )
                    finally:
                        self._patient_waiting -= 1
                    if not patient:
                        self._background_starved += 1
                        try:
                            self._starved.wait_for(lambda: not self._held)
                        finally:
                            self._background_starved -= 1
                self._held = True
            finally:
                # A wake this waiter took may have been meant for another (or it was interrupted):
                # pass it on. Held, it is a no-op.
                self._wake()
        try:
            yield
        finally:
            with self._foreground:
                self._held = False
                self._wake()

    def _wake(self) -> None:
        """Wakes the one waiter the free lock goes to next (the mutex held): a starved background
        acquirer, else a caller, else a patient background acquirer. A woken waiter that finds the
        lock taken again sleeps until that holder's release wakes the next one."""
        if self._held:
            return
        if self._background_starved:
            self._starved.notify()
        elif self._foreground_waiting:
            self._foreground.notify()
        elif self._patient_waiting:
            self._patient.notify()


class _OneDynamoDBRequestAtATime:
    """WSGI middleware: DynamoDB (and its streams) one request at a time, callers first.

    moto's DynamoDB is not thread-safe: a TransactWriteItems writes item by item and undoes them
    on failure (moto_transactions.py), so a write or read from another thread meanwhile would see
    or clobber a half-done transaction, and moto's iterations over a table fail when another
    thread changes it ("dictionary changed size during iteration"). Real DynamoDB has neither
    problem, so the emulator serializes these requests, and those of an extension (which may
    change tables too), and stream consumers' registrations (which trim streams). Other services
    (SQS long polls among them) stay parallel.

    Serializing makes every client wait for every other, which AWS never does; requests marked as
    the runtime's background work (background.py) therefore wait for the unmarked ones, so an API
    call is not starved by the pipeline it feeds.
    """

    def __init__(self, app: Any) -> None:
        self._app = app
        self._lock = ForegroundFirstLock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        dynamodb = environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB")
        path = environ.get("PATH_INFO", "")
        if not dynamodb and not path.startswith(EXTENSION_PATH) and path not in _LOCKED_PATHS:
            return self._app(environ, start_response)
        with self._lock.held(background=WSGI_KEY in environ):
            return list(self._app(environ, start_response))  # the whole response, under the lock


_LOCKED_PATHS = (STREAM_CONSUMERS_PATH, TTL_SWEEP_PATH)  # they change tables or streams too


def _swept(gated: Any, locked: Any) -> bool:
    """One TTL sweep, as the pipeline's background work: asked first of `locked` (the DynamoDB
    lock only: it reads), then, when something is due, made through `gated` (the snapshot gate,
    which counts it as a change, and the lock). True when more are due."""
    if not _sweep_request(locked, "GET").get("due"):
        return False
    return bool(_sweep_request(gated, "POST").get("more"))


def _sweep_request(app: Any, method: str) -> dict[str, Any]:
    answer: list[str] = []
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": TTL_SWEEP_PATH,
        "CONTENT_LENGTH": "0",
        "wsgi.input": io.BytesIO(),
        WSGI_KEY: "1",
    }
    body = b"".join(app(environ, lambda status, headers, *_: answer.append(status)))
    found: dict[str, Any] = json.loads(body) if answer == ["200 OK"] else {}
    return found


def _as_is(app: Any) -> Any:
    return app


class _StateEndpoint:
    """WSGI middleware: STATE_PATH takes snapshots (POST, with the runtime's document as its body)
    while `gate` holds other requests, and answers the document the emulator was restored with
    (GET); the rest goes on to `app`."""

    def __init__(self, app: Any, gate: SnapshotGate, state_file: Path | None, restored: dict[str, Any] | None) -> None:
        self._app = app
        self._gate = gate
        self._state_file = state_file
        self._restored = restored

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != STATE_PATH:
            passed: Iterable[bytes] = self._app(environ, start_response)
            return passed
        if self._state_file is None:
            return _answer(start_response, "409 Conflict", {"error": "started without a state file"})
        if environ["REQUEST_METHOD"] == "GET":
            return _answer(start_response, "200 OK", {"restored": self._restored})
        length = int(environ.get("CONTENT_LENGTH") or 0)
        document = json.loads(environ["wsgi.input"].read(length) or b"{}")
        state_file = self._state_file
        self._gate.quiesced(lambda: persistence.save(state_file, document))
        return _answer(start_response, "200 OK", {"saved": str(state_file), "requests": self._gate.requests})


def _answer(start_response: StartResponse, status: str, body: dict[str, Any]) -> list[bytes]:
    start_response(status, [("Content-Type", "application/json")])
    return [json.dumps(body).encode()]


def serve(port: int, state_file: Path | None = None) -> None:
    """The child process: restore `state_file` if it exists, then serve until stdin closes."""
    if (reason := _cannot_listen(port)) is not None:  # said before a snapshot takes a minute to load
        _say(_ERROR, reason)
        sys.exit(1)
    snapshot = state_file if state_file is not None and state_file.is_file() else None
    if snapshot is not None:  # before moto's imports, which loading it needs too
        _say(_LOADING, persistence.loading(snapshot))
    # imported here: only the child needs moto
    from moto.server import ThreadedMotoServer

    from devtools.moto_patches import (
        action_names,
        ast_copies,
        batch_duplicates,
        condition_expressions,
        control_writes,
        direct_views,
        dynamodb_responses,
        header_lines,
        instance_tracking,
        json_errors,
        json_requests,
        keep_alive,
        moto_items,
        moto_query,
        moto_routing,
        moto_sqs,
        moto_transactions,
        queue_depths,
        server_app,
        stream_reads,
        stream_trims,
        stream_writes,
        ttl_sweep,
        update_checks,
        update_expressions,
        wakes,
    )

    moto_transactions.install()  # transactions cost what they write, not what the tables hold
    moto_query.install()  # a Query reads its partition, not the whole table
    moto_sqs.install()  # a queue's calls cost the same at any depth
    stream_writes.install()  # stream readers wait for a write instead of polling
    stream_reads.install()  # a stream read costs a JSON dump of its records, not moto's serializer
    stream_trims.install()  # a stream keeps what its consumers have not all read, 24 hours at most
    moto_routing.install()  # a request finds its backend without listing moto's package directory
    moto_items.install()  # an item is built in time linear in its attributes, not quadratic
    dynamodb_responses.install()  # an item operation's answer is a JSON dump, not moto's serializer
    batch_duplicates.install()  # BatchWriteItem dumps to JSON only requests equal to another, to compare
    json_requests.install()  # a JSON request is parsed by a plan made once per shape, not a walk of the model
    update_expressions.install()  # an UpdateExpression is parsed once per text, not twice per action
    keep_alive.install()  # a client's connection serves its next request: no connect and thread per call
    header_lines.install()  # a request's plain header lines are read without the email package's parser
    direct_views.install()  # a JSON-protocol request goes to moto's handler without Flask's request cycle
    action_names.install()  # a request's action is looked up by name, not by listing its handler's class
    condition_expressions.install()  # a condition is parsed once per text, names and values, not twice per request
    json_errors.install()  # a JSON error is built without the XML body it replaces
    update_checks.install()  # an update expression's fixed checks are made once per text, names and keys
    ast_copies.install()  # an update expression's tree is copied by a walk of its nodes, not copy.deepcopy
    ttl_sweep.install()  # items past their TTL on the runtime's clock are deleted, as DynamoDB does
    instance_tracking.install()  # moto's models are not each kept in a list for the life of the process
    restored = (
        persistence.restore(
            snapshot,
            progress=lambda message: _say(_LOADING, message),
            outcome=lambda level, message: _say(_WARNING if level >= logging.WARNING else _INFO, message),
        )
        if snapshot is not None
        else None
    )
    if (reason := _cannot_listen(port)) is not None:  # taken while the snapshot loaded
        _say(_ERROR, reason)
        sys.exit(1)

    extension = os.environ.get(EXTENSION_ENV)  # named by whoever started this process
    wrap = importlib.import_module(extension).wsgi if extension else _as_is

    def middleware(app: Any) -> Any:
        locked = ttl_sweep.wsgi(stream_trims.wsgi(wrap(app), STREAM_CONSUMERS_PATH), TTL_SWEEP_PATH)
        dynamodb = _OneDynamoDBRequestAtATime(locked)
        gate = SnapshotGate(dynamodb, wake=wakes.wake_all)
        # The stream wait outside the gate and the DynamoDB lock: it only waits.
        polls = wakes.wsgi(stream_writes.wsgi(gate, STREAM_WRITES_PATH), WAKE_PATH)
        polls = ttl_sweep.clock_wsgi(stream_trims.clock_wsgi(polls, CLOCK_PATH), CLOCK_PATH)
        polls = control_writes.wsgi(polls, CONTROL_WRITES_PATH)
        polls = queue_depths.wsgi(polls, QUEUE_DEPTHS_PATH)
        ttl_sweep.sweeper(lambda: _swept(gate, dynamodb), stopped)
        return _StateEndpoint(polls, gate, state_file, restored)

    stopped = threading.Event()
    server_app.install(middleware)
    collector.install()  # a full collection walks what is new, not every table and item again

    signal.pthread_sigmask(signal.SIG_SETMASK, set())  # the parent blocks its stop signals; exec keeps that
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.excepthook = _exit_on_server_error
    # werkzeug logs every request at INFO unless told otherwise; moto gets hundreds a second.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address=HOST, port=port, verbose=False)
    server.start()
    host, bound_port = server.get_host_and_port()
    print(f"http://{host}:{bound_port}", flush=True)
    sys.stdin.read()
    stopped.set()
    server.stop()


def _exit_on_server_error(args: threading.ExceptHookArgs) -> None:
    """ThreadedMotoServer waits forever when its thread dies (e.g. the port is taken): exit instead."""
    if not isinstance(args.exc_value, SystemExit):  # werkzeug explains a taken port, then exits
        print(f"devtools.local.emulator: {args.exc_value!r}", file=sys.stderr, flush=True)
    os._exit(1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The embedded runtime's AWS emulator (moto), until stdin closes.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="0 picks a free port")
    parser.add_argument("--state", type=Path, help="snapshot file: restored at start, written on request")
    arguments = parser.parse_args()
    serve(arguments.port, arguments.state)
