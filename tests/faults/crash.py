"""Faults at every AWS call of a worker: the invocation dies right after its k-th call returned
(the call done, its reply lost: the worst moment), or that call fails as AWS's transient errors do.

`CallFault` patches botocore's one entry point for API calls. It counts the calls of each
invocation of one function (the embedded runtime runs an invocation in a thread of its own, named
"<caller> > <stack>-<LogicalId>", and the parts it runs side by side in threads named after it)
and strikes the first invocation that reaches call k, once: the event source then redelivers (the
runtime's pumps, as Lambda and SQS would), and the retry runs clean.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from botocore.client import BaseClient
from botocore.exceptions import ClientError

# A cold start's configuration reads (the pepper, signing material): an instance makes them once, so
# they would shift k between a cold and a warm invocation. Dying after one is dying at the start.
UNCOUNTED = frozenset({"secretsmanager.GetSecretValue"})


class Killed(BaseException):
    """An invocation dying: not an error any handler in the code catches (the runtime reports the
    invocation as crashed, FunctionCrashed, and never reuses its instance)."""


class Fault(StrEnum):
    CRASH = "crash"  # the k-th call is done, then the invocation dies
    THROTTLE = "throttle"  # the k-th call fails with a throttling error, not done
    SERVER_ERROR = "server_error"  # the k-th call fails with a 500, not done


_ERRORS = {
    Fault.THROTTLE: ("ThrottlingException", 400, "Rate exceeded"),
    Fault.SERVER_ERROR: ("InternalServerError", 500, "We encountered an internal error. Please try again."),
}


class CallFault:
    def __init__(self, function: str, k: int, fault: Fault = Fault.CRASH) -> None:
        self.function = function
        self.k = k
        self.fault = fault
        self.struck: str | None = None  # "<service>.<operation>" of the call struck
        self.calls: dict[int, list[str]] = {}  # invocation thread -> its calls, in order
        self._lock = threading.Lock()
        self._serials = itertools.count(1)
        self._original: Callable[..., Any] | None = None

    def __enter__(self) -> CallFault:
        original = BaseClient._make_api_call
        fault = self

        def faulty(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
            return fault.call(original, client, operation_name, api_params)

        self._original = original
        BaseClient._make_api_call = faulty
        return self

    def call(self, original: Callable[..., Any], client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        """One API call through `original`, counted, and struck if it is the one."""
        name = f"{client.meta.service_model.service_name}.{operation_name}"
        strike = self._count(name)
        if strike and self.fault is not Fault.CRASH:
            code, status, message = _ERRORS[self.fault]
            raise ClientError(
                {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}},
                operation_name,
            )
        response = original(client, operation_name, api_params)
        if strike:
            raise Killed(f"{self.function} killed after call {self.k} ({name})")
        return response

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._original is not None:
            BaseClient._make_api_call = self._original

    def _count(self, name: str) -> bool:
        """Counts a call of the function's invocations; True for the one to strike."""
        invocation = self._invocation(threading.current_thread())
        if name in UNCOUNTED or invocation is None:
            return False
        with self._lock:
            # a serial on the thread object: the OS reuses idents of threads that ended
            serial = invocation.__dict__.setdefault("_fault_serial", next(self._serials))
            made = self.calls.setdefault(serial, [])
            made.append(name)
            if self.struck is None and len(made) == self.k:
                self.struck = name
                return True
        return False

    def _invocation(self, thread: threading.Thread) -> threading.Thread | None:
        """The function's invocation a thread works for: itself, or for a part it runs side by side
        ("<invocation> > part_N"), the live invocation thread of that name; None: another's."""
        parts = thread.name.split(" > ")
        for end in range(len(parts), 1, -1):
            if parts[end - 1].endswith(f"-{self.function}"):
                if end == len(parts):
                    return thread
                name = " > ".join(parts[:end])
                return next((alive for alive in threading.enumerate() if alive.name == name), None)
        return None

    def most_calls(self) -> int:
        """The most calls an invocation made: the one that did the workload's work, where other
        invocations of the function (other events on the same stream) do little or nothing."""
        return max(map(len, self.calls.values()), default=0)

    def busiest(self) -> list[str]:
        """The calls of the invocation that made the most."""
        return max(self.calls.values(), key=len, default=[])


class ArmedByFile:
    """In a runtime of its own process (tests/faults/child.py): the CallFault a parent test arms by
    writing `path` ({"function", "k", "fault", "serial"}; an empty function disarms). What it counts
    is written to `path`.result ({"serial", "struck", "calls"}) as it goes, for ChildFault to read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._text = ""
        self._serial = -1
        self._fault: CallFault | None = None

    def install(self) -> None:
        original = BaseClient._make_api_call
        armed = self

        def faulty(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
            fault = armed._current()
            if fault is None:
                return original(client, operation_name, api_params)
            before = sum(map(len, fault.calls.values()))
            try:
                return fault.call(original, client, operation_name, api_params)
            finally:
                if sum(map(len, fault.calls.values())) != before:  # one of the function's calls
                    armed._report(fault)

        BaseClient._make_api_call = faulty

    def _current(self) -> CallFault | None:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return None
        with self._lock:
            if text != self._text and text:
                arming = json.loads(text)
                self._text, self._serial = text, arming["serial"]
                self._fault = (
                    CallFault(arming["function"], arming["k"], Fault(arming["fault"])) if arming["function"] else None
                )
            return self._fault

    def _report(self, fault: CallFault) -> None:
        with self._lock:
            if fault is not self._fault:
                return
            with fault._lock:
                seen = {"serial": self._serial, "struck": fault.struck, "calls": list(fault.calls.values())}
            staged = self.path.with_suffix(".staged")
            staged.write_text(json.dumps(seen))
            staged.replace(self.path.with_suffix(".result"))


class ChildFault:
    """The parent's side of ArmedByFile: `with ChildFault(path, function, k, fault) as striking:` arms
    the child's runtime as CallFault arms this process's; `struck` and `calls` read what it saw."""

    _serials = itertools.count(1)

    def __init__(self, path: Path, function: str, k: int, fault: Fault = Fault.CRASH) -> None:
        self.path = path
        self.function = function
        self.k = k
        self.fault = fault
        self.serial = next(self._serials)

    def __enter__(self) -> ChildFault:
        self._write({"function": self.function, "k": self.k, "fault": str(self.fault), "serial": self.serial})
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._write({"function": "", "k": 0, "fault": str(Fault.CRASH), "serial": next(self._serials)})

    def _write(self, arming: dict[str, Any]) -> None:
        staged = self.path.with_suffix(".staged-arming")
        staged.write_text(json.dumps(arming))
        staged.replace(self.path)

    def _seen(self) -> dict[str, Any]:
        try:
            seen: dict[str, Any] = json.loads(self.path.with_suffix(".result").read_text())
        except FileNotFoundError:
            return {}
        return seen if seen.get("serial") == self.serial else {}

    @property
    def struck(self) -> str | None:
        struck: str | None = self._seen().get("struck")
        return struck

    def busiest(self) -> list[str]:
        calls: list[list[str]] = self._seen().get("calls", [])
        return max(calls, key=len, default=[])


# -- the sweep: which k to strike, and the loop every worker's test runs ------------------------------

FULL = os.environ.get("FAULT_FULL") == "1"  # every k and every fault (make bench-faults), else a sample
# A call that changes state (its operation's first word): a crash right after one leaves what a crash
# before the next call leaves, plus that change; a crash after a read is one after the write before it.
WRITE_VERBS = {"Put", "Update", "Delete", "Transact", "Send", "Create", "Start", "Complete", "Upload", "Copy", "Change"}


class Striking(Protocol):
    struck: str | None

    def __enter__(self) -> Striking: ...

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None: ...

    def busiest(self) -> list[str]: ...


def is_write(call: str) -> bool:
    operation = call.split(".")[1]
    verb = re.findall(r"[A-Z][a-z]*", operation)[:1]
    return operation == "BatchWriteItem" or verb[0] in WRITE_VERBS if verb else False


def sample_ks(calls: list[str], fault: Fault) -> list[int]:
    """The k to strike: every call under FAULT_FULL; otherwise (make test's CPU) a crash after the
    write a third of the way through the writes (a crash's distinct moments are after writes: each
    leaves a different state to redo from, and one part way through leaves work half done), and a
    transient error at the middle call."""
    every = list(range(1, len(calls) + 1))
    if FULL:
        return every
    if fault is Fault.CRASH:
        writes = [k for k in every if is_write(calls[k - 1])]
        return [writes[(len(writes) - 1) // 3]] if writes else [len(calls)]
    return [(len(calls) + 1) // 2]


Arm = Callable[[str, int, Fault], Striking]  # (function, k, fault) -> CallFault or ChildFault, to enter


def sweep(worker: str, workload: Callable[[str], None], arm: Arm) -> list[str]:
    """Runs `workload` (which checks its invariants, naming the case it is told) clean to list the
    worker's calls (twice under FAULT_FULL, the shorter: a cold instance, or a cache due a refresh,
    makes more; a sample's k past a warm run's calls takes the fallback below), then
    once per (fault, k) of the sample with the worker's first invocation to reach call k struck
    (again, up to three times, until one does). A worker whose work depends on what earlier runs
    left (a daily pass's days to walk) may come to make fewer calls than k: then its last call is
    struck instead, and a full sweep's larger k are not run again. Returns the cases held,
    "fault k:call"."""
    runs = []
    for _ in range(2 if FULL else 1):  # a sample's k past a cold run's calls falls back below
        with arm(worker, 0, Fault.CRASH) as counting:
            workload(f"{worker} clean")
        runs.append(counting.busiest())
    calls = min(runs, key=len)
    assert calls, f"{worker} made no AWS call: is its name right?"
    held = []
    for fault in list(Fault) if FULL else [Fault.CRASH, Fault.THROTTLE]:
        for k in sample_ks(calls, fault):
            struck, reach = strike(worker, workload, arm, k, fault, f"{calls[k - 1]} in a clean run")
            if struck is None:  # no invocation made k calls: the last call it made, instead
                assert 0 < reach < k, f"{worker} k={k}: no invocation reached call {k} in three runs"
                struck, _ = strike(worker, workload, arm, reach, fault, f"the last call, for {k}")
                assert struck, f"{worker} k={reach}: no invocation reached call {reach} in three runs"
                held.append(f"{fault} {reach}:{struck} (for {k})")
                break
            held.append(f"{fault} {k}:{struck}")
    print(f"FAULT-CASES {worker}: {len(held)} cases run and held of {len(calls)} calls: {held}")
    return held


def strike(
    worker: str,
    workload: Callable[[str], None],
    arm: Arm,
    k: int,
    fault: Fault,
    at: str,
) -> tuple[str | None, int]:
    """Runs `workload` until an invocation of `worker` reaches call k and is struck (three runs at
    most); (the call struck or None, the most calls an invocation made)."""
    with arm(worker, k, fault) as striking:
        for _ in range(3):
            workload(f"{worker} {fault} at call {k} ({at})")
            if striking.struck:
                break
        return striking.struck, len(striking.busiest())
