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

Within the pipeline, the same reason orders the consumers. A mapping with a batching window
(MaximumBatchingWindowInSeconds: the metrics roll-up, the recipient activity) says its function
can wait; one without (the webhook fan-out, the outbox, the dispatcher) says it should not. In AWS
each runs on its own compute; here a window's batch of 200 events, started while the fan-out was
at work, held the fan-out's first attempts up for hundreds of milliseconds (the interface's "within
about 300 ms"). So a batch with a window starts once no prompt batch has run for PROMPT_QUIET_SECONDS,
waiting at most DEFER_MOST_SECONDS past its window: it is never starved, only later.
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
PROMPT_QUIET_SECONDS = 0.01  # a deferrable batch starts once no prompt batch has run for this long
DEFER_MOST_SECONDS = 2.0  # and waits for that at most this long


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
        self._prompt = 0  # prompt deliveries running
        self._prompt_ended = 0.0  # monotonic time the last one ended
        self._turn_seconds = turn_seconds
        self._calls = threading.Condition()
        self._in_flight = 0  # API calls
        self._next_turn = 0.0  # monotonic time of the pipeline's next batch while calls are in flight
        self._request_seconds = request_seconds
        self._next_request = 0.0  # and of its next AWS request

    @contextmanager
    def working(self, *, prompt: bool = False) -> Iterator[None]:
        """Wraps one delivery: a function invocation, a message released or sent by the clock.
        `prompt`: a batch of a mapping without a batching window, which deferrable batches let go first."""
        with self._lock:
            self._running += 1
            self._prompt += prompt
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                self._finished += 1
                if prompt:
                    self._prompt -= 1
                    self._prompt_ended = time.monotonic()

    def deferred_turn(self, stopping: threading.Event, most_seconds: float = DEFER_MOST_SECONDS) -> None:
        """Returns when a deferrable batch (its mapping has a batching window) may start: once no
        prompt batch has run for PROMPT_QUIET_SECONDS, or after `most_seconds` (or when `stopping` is set)."""
        give_up = time.monotonic() + most_seconds
        while not stopping.is_set():
            now = time.monotonic()
            with self._lock:
                busy, quiet_at = self._prompt > 0, self._prompt_ended + PROMPT_QUIET_SECONDS
            if (not busy and quiet_at <= now) or now >= give_up:
                return
            stopping.wait(min(PROMPT_QUIET_SECONDS if busy else quiet_at - now, give_up - now))

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
