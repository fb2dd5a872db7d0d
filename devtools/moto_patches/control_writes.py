"""A count of the writes to what the runtime's ticker reads every second: EventBridge Scheduler's
schedules and Step Functions' executions.

Why: the ticker (devtools/local/ticker.py) fires due schedules and steps running workflows on the
movable clock. Listing schedules and running executions on every tick was most of an idle
`make run`'s requests; with this count the ticker lists again only when something was written
(a schedule created, changed or deleted; an execution started or stopped), and otherwise works
from what it read last.

How: the emulator's requests to those two services that change something are counted as they
pass (scheduler: POST, PUT and DELETE under /schedules; Step Functions: every action but the
Describe, List, Get and Validate ones); `GET <path>` answers the count. A request is counted
once moto has served it: a reader that saw the count before it lists again at its next look, so a
write is never missed (at worst a listing repeats for nothing).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

_STEP_FUNCTIONS = "AWSStepFunctions."
_READS = ("Describe", "List", "Get", "Validate")
_counter = itertools.count(1)
_count = 0


def _changes_something(environ: dict[str, Any]) -> bool:
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    if target.startswith(_STEP_FUNCTIONS):
        return not target[len(_STEP_FUNCTIONS) :].startswith(_READS)
    path = environ.get("PATH_INFO", "")
    return path.startswith("/schedules/") and environ.get("REQUEST_METHOD") in ("POST", "PUT", "DELETE")


def wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`, counting the writes above, plus `GET <path>` answering their count."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        global _count
        if environ.get("PATH_INFO") == path:
            body = str(_count).encode()
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
            return [body]
        answer: Iterable[bytes] = app(environ, start_response)
        if _changes_something(environ):
            _count = next(_counter)  # itertools.count is atomic under the GIL: no lock needed
        return answer

    return serve
