"""Every AWS call made in this process, as botocore makes it: thread, operation, parameters, duration.

The embedded runtime's handlers run in this process, on the gateway's request threads, so a
recorder installed here sees exactly the calls a request made, in order, with their parameters.
Recording costs two clock reads and a list append per call, on both sides of every comparison (a
side-by-side worker's call also looks its caller up among the live threads).
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from botocore.client import BaseClient

REQUEST_THREAD_MARK = "process_request_thread"  # werkzeug's threaded server names its request threads so
_PART = " > part"  # shared/parallel.run_each's workers: "<caller> > part<run>_<worker>"


@dataclass(frozen=True)
class Call:
    thread: str
    service: str  # botocore's service name: dynamodb, sqs, kms, ...
    operation: str  # the API name: BatchGetItem, SendMessageBatch, ...
    params: dict[str, Any]  # as the caller passed them (not copied: copy after timing)
    started: float  # perf_counter
    seconds: float
    response: dict[str, Any] | None = None  # what the call returned (None when it raised); not copied
    thread_serial: int = 0  # one per thread ever seen: an invocation's thread, even where names repeat
    # The serial of the thread a side-by-side worker ("<caller> > part<run>_<worker>") works for (its
    # caller, alive and waiting for it); a thread's own otherwise.
    caller_serial: int = 0

    @property
    def name(self) -> str:
        return f"{self.service}.{self.operation}"

    @property
    def in_request(self) -> bool:
        """Made by an API handler (a gateway request thread), not a pump, the ticker or the bench."""
        return REQUEST_THREAD_MARK in self.thread


class CallRecorder:
    """Patches botocore's one entry point for API calls while installed (a context manager)."""

    def __init__(self) -> None:
        self._calls: list[Call] = []
        self._lock = threading.Lock()
        self._original: Callable[..., Any] | None = None
        self._serials: weakref.WeakKeyDictionary[threading.Thread, int] = weakref.WeakKeyDictionary()
        self._next_serial = itertools.count(1)
        self._paused = threading.Event()

    def __enter__(self) -> CallRecorder:
        original = BaseClient._make_api_call
        record = self._record

        def recording(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
            started = time.perf_counter()
            response = None
            try:
                response = original(client, operation_name, api_params)
                return response
            finally:
                seconds = time.perf_counter() - started
                service = client.meta.service_model.service_name
                record(service, operation_name, api_params, started, seconds, response)

        self._original = original
        BaseClient._make_api_call = recording
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._original is not None:
            BaseClient._make_api_call = self._original
            self._original = None

    def mark(self) -> int:
        """A position to read calls from with `since`."""
        with self._lock:
            return len(self._calls)

    def since(self, mark: int) -> list[Call]:
        with self._lock:
            return self._calls[mark:]

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Records nothing while the block runs (a memory measurement must not count the recording)."""
        self._paused.set()
        try:
            yield
        finally:
            self._paused.clear()

    def forget(self) -> None:
        """Drops what was recorded (positions from `mark` start again at 0)."""
        with self._lock:
            self._calls.clear()

    def _record(
        self,
        service: str,
        operation: str,
        params: dict[str, Any],
        started: float,
        seconds: float,
        response: dict[str, Any] | None,
    ) -> None:
        if self._paused.is_set():
            return
        thread = threading.current_thread()
        caller = thread
        if _PART in thread.name:
            name = thread.name.split(_PART)[0]
            caller = next((alive for alive in threading.enumerate() if alive.name == name), thread)
        with self._lock:
            serial, caller_serial = self._serial(thread), self._serial(caller)
            self._calls.append(
                Call(thread.name, service, operation, params, started, seconds, response, serial, caller_serial)
            )

    def _serial(self, thread: threading.Thread) -> int:
        return self._serials.get(thread) or self._serials.setdefault(thread, next(self._next_serial))


def request_calls(calls: list[Call]) -> list[Call]:
    return [call for call in calls if call.in_request]


def call_mix(calls: list[Call]) -> dict[str, int]:
    """How many of each operation, in order of first use."""
    mix: dict[str, int] = {}
    for call in calls:
        mix[call.name] = mix.get(call.name, 0) + 1
    return mix
