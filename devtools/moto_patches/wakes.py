"""Ends the emulator's long polls at once: the runtime's stop.

Why: the runtime's pumps wait inside the emulator (SQS receives, stream waits in stream_writes.py)
for as long as SQS allows, 20 s, so that an idle `make run` makes a request per pump every 20 s
instead of every second (issue: idle cost). Stopping must not wait those 20 s: the runtime asks
`POST <path>` once its pumps are told to stop, and every poll in progress returns empty.

How: a wake is a new epoch. A poll notes the epoch as it starts and ends when it changes; stream
waits are notified at once, SQS receives see it at their next step (moto_sqs.py re-checks every
second). Nothing else changes: a wake answers nothing but "woken".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

_epoch = 0
_lock = threading.Lock()
_listeners: list[Callable[[], None]] = []


def epoch() -> int:
    return _epoch


def on_wake(notify: Callable[[], None]) -> None:
    """`notify` runs at every wake (a condition's notify_all, for waits that can be told at once)."""
    with _lock:
        _listeners.append(notify)


def wake_all() -> None:
    global _epoch
    with _lock:
        _epoch += 1
        listeners = list(_listeners)
    for notify in listeners:
        notify()


def wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`, plus `POST <path>`, which wakes every poll in progress."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != path or environ.get("REQUEST_METHOD") != "POST":
            return app(environ, start_response)  # type: ignore[no-any-return]
        wake_all()
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "5")])
        return [b"woken"]

    return serve
