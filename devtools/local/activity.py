"""What the runtime is doing: deliveries in progress and done, so `drain` can tell a quiet runtime
from a busy one; and API calls in flight, which the pipeline's batches let go first.

Why the second: in the embedded runtime the API, the pumps and the handlers they invoke share one
interpreter (and the emulator one DynamoDB lane, where background.py gives callers precedence).
While a 5,000-recipient batch was being accepted, the dispatcher was already delivering its first
messages, four batches at a time, and the stream consumers were reading their events: the API
call got a fraction of the interpreter and ran past API Gateway's 29 s. In AWS the pipeline runs on
Lambda's own compute and never slows an API call; here the next best thing is that, while API
calls are in flight, the pipeline starts one batch per PIPELINE_TURN_SECONDS across the runtime,
and at once again when none is. The pipeline still advances under a steady stream of calls.

Batches already running when a call arrives went on at full speed, though, each on a thread of its
own: four dispatcher batches and the stream consumers still took most of the interpreter, so a
9,990-entry bulk add passed the gateway's cut (README, The embedded runtime, has figures). So
the pipeline also yields inside its batches: while API calls are in flight, its AWS requests
(every one goes through botocore, background.py) leave one at a time, one per
PIPELINE_REQUEST_SECONDS across the runtime; a thread waiting for its turn holds no interpreter.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

PIPELINE_TURN_SECONDS = 1.0
PIPELINE_REQUEST_SECONDS = 0.02  # while API calls are in flight: the pipeline's AWS requests, all threads
_STOP_CHECK_SECONDS = 0.5  # how soon a stopping pump notices, at most


class Snapshot(NamedTuple):
    running: int
    finished: int


class Activity:
    def __init__(
        self, turn_seconds: float = PIPELINE_TURN_SECONDS, request_seconds: float = PIPELINE_REQUEST_SECONDS
    ) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._finished = 0
        self._turn_seconds = turn_seconds
        self._calls = threading.Condition()
        self._in_flight = 0  # API calls
        self._next_turn = 0.0  # monotonic time of the pipeline's next batch while calls are in flight
        self._request_seconds = request_seconds
        self._next_request = 0.0  # and of its next AWS request

    @contextmanager
    def working(self) -> Iterator[None]:
        """Wraps one delivery: a function invocation, a message released or sent by the clock."""
        with self._lock:
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                self._finished += 1

    def snapshot(self) -> Snapshot:
        with self._lock:
            return Snapshot(self._running, self._finished)

    @contextmanager
    def calling(self) -> Iterator[None]:
        """Wraps one API call, from its arrival to its answer."""
        with self._calls:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._calls:
                self._in_flight -= 1
                if not self._in_flight:
                    self._calls.notify_all()

    def pipeline_turn(self, stopping: threading.Event) -> None:
        """Returns when a pipeline batch may start: at once while no API call is in flight, else at
        the pipeline's next turn (or when the calls end, or `stopping` is set)."""
        with self._calls:
            while self._in_flight and not stopping.is_set():
                wait = self._next_turn - time.monotonic()
                if wait <= 0:
                    self._next_turn = time.monotonic() + self._turn_seconds
                    return
                self._calls.wait(min(wait, _STOP_CHECK_SECONDS))

    def pipeline_request(self) -> None:
        """Returns when a pipeline thread's AWS request may leave: at once while no API call is in
        flight, else at the pipeline's next request slot (or when the calls end)."""
        with self._calls:
            while self._in_flight:
                wait = self._next_request - time.monotonic()
                if wait <= 0:
                    self._next_request = time.monotonic() + self._request_seconds
                    return
                self._calls.wait(wait)
