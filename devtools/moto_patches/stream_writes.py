"""A wake-up for stream readers: moto's DynamoDB stream shards count their records, and a request
can wait for the next one.

Why: the embedded runtime's stream pumps (devtools/local/pumps.py) run in the parent process and
read streams over HTTP. Polling every 100 ms made each event wait 50 ms on average, up to 100,
before the webhook fan-out read it: most of a first webhook's latency (p99 359 ms).

How: `StreamShard.add`, which every stream record moto writes goes through (put, update, delete,
batch writes, transactions), is wrapped to count the records per table and wake the waiters.
`wsgi(app, path)` answers `GET <path>?table=NAME&after=N&timeout=S` with the table's count once it
is above N, or when S seconds (at most 20) have passed; with `&kind=insert`, the count of its
INSERT records only (a pump whose FilterCriteria passes INSERTs only is not woken by an update,
which it would read and drop: the outbox's messages table is updated several times a message).
It sits outside the emulator's one-DynamoDB-request-at-a-time lock: it only waits. A transaction
rolled back removes its records (moto_transactions.py) but not their count: a reader woken for
nothing reads once more.

Guard: `install()` checks that moto still writes stream records in `StreamShard.add`, and raises
otherwise, so a moto upgrade stops the emulator loudly instead of pumps that never wake.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

from moto.dynamodb.models.table import StreamShard

from devtools.moto_patches import wakes
from devtools.moto_patches.guarded import GuardedPatch, Replacement

_MAX_WAIT_SECONDS = 20.0
_written: dict[str, int] = {}  # table name -> stream records written since the process started
_inserted: dict[str, int] = {}  # table name -> of those, INSERT records
_changed = threading.Condition()


def _add(self: StreamShard, old: Any, new: Any) -> None:
    _PATCH.original(_ADD)(self, old, new)
    with _changed:
        _written[self.table.name] = _written.get(self.table.name, 0) + 1
        if old is None:  # moto's own test for an INSERT (StreamShard.add)
            _inserted[self.table.name] = _inserted.get(self.table.name, 0) + 1
        _changed.notify_all()


def wait(table: str, after: int, timeout: float, *, inserts: bool = False) -> int:
    """The table's record count (`inserts`: of INSERT records only), once it is above `after`,
    `timeout` seconds have passed, or the runtime woke every poll (wakes.py)."""
    counts = _inserted if inserts else _written
    started = wakes.epoch()
    with _changed:
        _changed.wait_for(
            lambda: counts.get(table, 0) > after or wakes.epoch() != started, timeout=min(timeout, _MAX_WAIT_SECONDS)
        )
        return counts.get(table, 0)


def _notify_waiters() -> None:
    with _changed:
        _changed.notify_all()


wakes.on_wake(_notify_waiters)


def wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`, plus the long poll at `path`."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != path:
            return app(environ, start_response)  # type: ignore[no-any-return]
        query = parse_qs(environ.get("QUERY_STRING", ""))
        try:
            table = query["table"][0]
            kind = query.get("kind", ["any"])[0]
            if kind not in ("any", "insert"):
                raise ValueError(kind)
            after, timeout = int(query.get("after", ["0"])[0]), float(query.get("timeout", ["0"])[0])
            count = wait(table, after, timeout, inserts=kind == "insert")
        except (KeyError, ValueError):
            start_response("400 Bad Request", [("Content-Type", "text/plain")])
            return [b"table=NAME&after=N&timeout=SECONDS[&kind=insert]"]
        body = str(count).encode()
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]

    return serve


def moto_add() -> Any:
    """moto's own StreamShard.add, whether or not this patch wraps it (other patches' guards read it)."""
    return _PATCH.original(_ADD) if StreamShard.add is _add else StreamShard.add


_ADD = Replacement(StreamShard, "add", _add)
_PATCH = GuardedPatch(
    "devtools/moto_patches/stream_writes.py",
    [_ADD],
    {"StreamShard.add": (lambda: StreamShard.add, ("self.items.append(StreamRecord(",))},  # as moto 5.2.5 writes it
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
