"""The runtime's background work tells the emulator so, and the emulator serves the API first.

Why: the emulator serves DynamoDB one request at a time (emulator.py says why), and in the
embedded runtime the API shares that one lane with the dispatcher, the stream consumers and the
schedules. Under a delivering pipeline a 5,000-recipient batch waited behind their requests and
could miss API Gateway's 29 s (bench b measures acceptance with the pipeline running).
In AWS no client waits for another's DynamoDB requests; here the next best thing is that a
request someone is waiting on (an API call, an SMTP submission, the CLI) goes before the
pipeline's. The pipeline only waits while such requests keep coming.

How: work started by the runtime's pumps and ticker runs on threads whose names begin with
BACKGROUND_ROOTS, and so do the invocations and request workers they start (functions.py and
shared/parallel.py name each thread after the one that started it). `install()` adds a botocore
`before-send` handler to every botocore session created afterwards (the layer creates a session
per client), which marks those threads' requests with BACKGROUND_HEADER; the emulator's DynamoDB
lock lets marked requests in only when no unmarked one waits. With `install(pace)`, the same
handler first calls `pace()` on those threads: the runtime passes Activity.pipeline_request, which
holds a pipeline request back while API calls are in flight (activity.py says why).

Guard: `install()` checks botocore's built-in handler list is still the list of (event, handler)
pairs each new session registers, and raises otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from botocore import handlers

BACKGROUND_HEADER = "x-postline-background"
WSGI_KEY = "HTTP_X_POSTLINE_BACKGROUND"  # how the emulator's WSGI environ spells that header
PUMP_ROOT = "pump "  # an event source mapping's threads: f"{PUMP_ROOT}{function}"
TICKER_ROOT = "ticker"  # schedules, workflows, delayed queues and snapshots
BACKGROUND_ROOTS = (PUMP_ROOT, TICKER_ROOT)
_EVENT = "before-send"
_pace: Callable[[], None] | None = None  # what a background request waits on before it leaves


def is_background(thread_name: str) -> bool:
    """Whether a thread of that name works for the pipeline rather than for a waiting caller."""
    return thread_name.startswith(BACKGROUND_ROOTS)


def _mark(request: Any, **_: Any) -> None:
    if is_background(threading.current_thread().name):
        request.headers[BACKGROUND_HEADER] = "1"  # unsigned: SigV4 signs only the headers it lists
        pace = _pace
        if pace is not None:
            pace()


def check_internals() -> None:
    specs = getattr(handlers, "BUILTIN_HANDLERS", None)
    if not isinstance(specs, list) or not all(isinstance(spec, tuple) and len(spec) in (2, 3) for spec in specs):
        raise RuntimeError(
            "botocore changed botocore.handlers.BUILTIN_HANDLERS, which devtools/local/background.py extends; review it"
        )


def install(pace: Callable[[], None] | None = None) -> None:
    """Every botocore session created afterwards marks the background threads' requests (idempotent),
    and holds each until `pace()` returns."""
    global _pace
    check_internals()
    _pace = pace
    if (_EVENT, _mark) not in handlers.BUILTIN_HANDLERS:
        handlers.BUILTIN_HANDLERS.append((_EVENT, _mark))


def uninstall() -> None:
    global _pace
    _pace = None
    while (_EVENT, _mark) in handlers.BUILTIN_HANDLERS:
        handlers.BUILTIN_HANDLERS.remove((_EVENT, _mark))
