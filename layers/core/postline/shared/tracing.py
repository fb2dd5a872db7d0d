"""An X-Ray subsegment around an adapter's unit of work: the service's tracer, looked up at the first call.

It is `tracer.capture_method(capture_response=False)` (responses hold addresses and events), with the
import of postline.observability deferred: importing that module builds the service's Powertools
Logger, and the CLI and the embedded runtime import the adapters (through wiring) before they set up
logging. Functions import observability themselves, so when an adapter runs in one, this is the same
tracer: a no-op where tracing is off (outside Lambda, POWERTOOLS_TRACE_DISABLED).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def traced(method: F) -> F:
    captured: Callable[..., Any] | None = None

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        nonlocal captured
        if captured is None:  # two threads may both get here: each builds the same wrapper
            from postline.observability import tracer

            captured = tracer.capture_method(capture_response=False)(method)
        return captured(*args, **kwargs)

    return cast(F, call)
