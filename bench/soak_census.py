"""An emulator extension for the soak (`python -m bench.soak --census`): what the emulator's memory holds.

`POSTLINE_EMULATOR_EXTENSION=bench.soak_census` in the emulator's environment (bench.soak sets it
with `--census`) adds, under the emulator's one-DynamoDB-request-at-a-time lock:

- `GET /_emulator/census`: per moto service, the objects reachable from its backends and their
  bytes (sys.getsizeof summed over a walk of gc referents, each object counted once, in the order
  of `SERVICES`: an object two services share counts for the first); per DynamoDB table, its items,
  their bytes (the items alone) and bytes per item; per S3 bucket, objects and body bytes (and how
  many bodies moto holds in memory rather than in a file); per SQS queue, its messages; the stream
  shards' records and the streams backend's shard iterators; the process's VmRSS and the
  interpreter's allocated blocks.
- `GET /_emulator/trace`: with `POSTLINE_SOAK_TRACEMALLOC=N` (frames) set, tracemalloc runs from
  the extension's import; each call answers the 30 source lines whose allocations grew most since
  the previous call (the first: since the import).

A diagnostic: the walk holds the lock for as long as it takes (a second or more per 100,000 items).
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tracemalloc
import types
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from devtools.local.emulator import EXTENSION_PATH

TRACE_ENV = "POSTLINE_SOAK_TRACEMALLOC"
SERVICES = (
    "dynamodb",
    "dynamodbstreams",
    "s3",
    "sqs",
    "stepfunctions",
    "scheduler",
    "kms",
    "secretsmanager",
    "iam",
    "sesv2",
    "ses",
    "events",
    "logs",
    "awslambda",
)
_SKIP = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.CodeType)
_previous: tracemalloc.Snapshot | None = None

if os.environ.get(TRACE_ENV):
    tracemalloc.start(int(os.environ[TRACE_ENV]))
    _previous = tracemalloc.take_snapshot()


def deep_size(root: Any, seen: set[int]) -> tuple[int, int]:
    """(objects, bytes) reachable from `root` not in `seen` (which it extends); classes, modules
    and functions are not followed."""
    objects = size = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _SKIP):
            continue
        seen.add(id(obj))
        objects += 1
        size += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return objects, size


def _stored(table: Any) -> Iterator[Any]:
    for partition in table.items.values():
        if table.range_key_attr is None:
            yield partition
        else:
            yield from partition.values()


def _regions(backend_dict: Any) -> Iterator[Any]:
    for regions in backend_dict.values():
        yield from regions.values()


def census() -> dict[str, Any]:
    from moto.backends import get_backend

    seen: set[int] = set()
    answer: dict[str, Any] = {"services": {}, "tables": {}, "buckets": {}, "queues": {}}
    # The items first, table by table, so that their bytes are theirs and not a backend's.
    from moto.dynamodb.models import dynamodb_backends

    for backend in _regions(dynamodb_backends):
        for name, table in backend.tables.items():
            count = sum(1 for _ in _stored(table))
            objects, size = deep_size(table.items, seen)
            shard = table.stream_shard
            answer["tables"][name] = {
                "items": count,
                "objects": objects,
                "bytes": size,
                "bytes_per_item": round(size / count) if count else 0,
                "stream_records": len(shard.items) if shard is not None else None,
                "ttl": table.ttl.get("AttributeName") if table.ttl.get("TimeToLiveStatus") == "ENABLED" else None,
            }
    for service in SERVICES:
        try:
            backends = get_backend(service)  # type: ignore[call-overload]
        except Exception:  # noqa: S112 - a service this moto does not have
            continue
        objects, size = deep_size(backends, seen)
        answer["services"][service] = {"objects": objects, "bytes": size}
    for backend in _regions(get_backend("s3")):
        for name, bucket in backend.buckets.items():
            keys = list(bucket.keys.values())
            in_memory = sum(1 for key in keys if not getattr(key._value_buffer, "_rolled", True))
            answer["buckets"][name] = {
                "objects": len(keys),
                "body_bytes": sum(key.size for key in keys),
                "bodies_in_memory": in_memory,
            }
    for backend in _regions(get_backend("sqs")):
        for name, queue in backend.queues.items():
            answer["queues"][name] = len(queue._messages)
    streams = sum(len(b.shard_iterators) for b in _regions(get_backend("dynamodbstreams")))
    answer["shard_iterators"] = streams
    answer["rss_mb"] = _rss_mb()
    answer["allocated_blocks"] = sys.getallocatedblocks()
    answer["gc_objects"] = len(gc.get_objects())
    return answer


def trace() -> dict[str, Any]:
    global _previous
    if _previous is None:
        return {"error": f"start the emulator with {TRACE_ENV}=N (frames)"}
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
    stats = snapshot.compare_to(_previous, "lineno")
    _previous = snapshot
    traced, peak = tracemalloc.get_traced_memory()
    return {
        "traced_mb": round(traced / 1e6, 1),
        "peak_mb": round(peak / 1e6, 1),
        "grew": [
            {"where": str(stat.traceback[0]), "bytes": stat.size_diff, "blocks": stat.count_diff, "now": stat.size}
            for stat in stats[:30]
        ],
    }


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


_ROUTES: dict[str, Callable[[], dict[str, Any]]] = {f"{EXTENSION_PATH}census": census, f"{EXTENSION_PATH}trace": trace}


def wsgi(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        route = _ROUTES.get(environ.get("PATH_INFO", ""))
        if route is None:
            return app(environ, start_response)
        body = json.dumps(route(), indent=1, default=str).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    return wrapped
