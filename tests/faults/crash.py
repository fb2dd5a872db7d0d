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
import threading
from collections.abc import Callable
from enum import StrEnum
from types import TracebackType
from typing import Any

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
            name = f"{client.meta.service_model.service_name}.{operation_name}"
            strike = fault._count(name)
            if strike and fault.fault is not Fault.CRASH:
                code, status, message = _ERRORS[fault.fault]
                raise ClientError(
                    {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}},
                    operation_name,
                )
            response = original(client, operation_name, api_params)
            if strike:
                raise Killed(f"{fault.function} killed after call {fault.k} ({name})")
            return response

        self._original = original
        BaseClient._make_api_call = faulty
        return self

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
