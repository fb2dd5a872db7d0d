"""j. Suppressions: a bulk add of 10,000 addresses through the API, as a ratio of the bare BatchWriteItem
calls that write the same items (the issue's goal: at most 1.3x).

The API call checks each address (email-validator), reads which are listed already (BatchGetItem, 100
keys a call) and writes the others (BatchWriteItem, 25 a call), then its audit entry; the bare side
writes the same 10,000 items, built beforehand, 25 a call, through the same emulator. Each repeat adds
new addresses (so every entry is written) in a new minute of the runtime's clock (the bulk routes'
window holds 10,000 entries a minute). A re-add of the same 10,000 (reads only) is timed too.

And a CSV import at two sizes through a presigned PUT: rows/s, and peak memory flat as the file grows.
The import's time limit scales with its rows: a generous bound per row (20 ms: the emulator imports
~1,000 rows/s) or three times what the first rows' rate projects for the whole file, whichever is
longer, never under 10 minutes; progress (rows, rate, time left) is printed every 15 s.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

import requests

from bench.api import ApiClient
from bench.recorder import CallRecorder
from bench.replay import Emulator
from devtools.local.runtime import Runtime
from postline.shared.dynamo import batch_write
from postline.suppressions.domain import SuppressionSource, SuppressionType, new_suppression
from postline.suppressions.store import entry_item


@dataclass(frozen=True)
class BulkAdd:
    entries: int
    repeats: int
    api_seconds: list[float]
    bare_seconds: list[float]
    readd_seconds: list[float]
    ratio_median: float  # API / bare, per repeat
    readd_ratio_median: float  # a re-add of the same entries (nothing written) / bare


def bulk_add(runtime: Runtime, api: ApiClient, aws: Emulator, entries: int, repeats: int) -> BulkAdd:
    db = aws.client("dynamodb")
    table = runtime.env["SUPPRESSIONS_TABLE"]
    api_seconds, bare_seconds, readd_seconds = [], [], []
    for repeat in range(repeats):
        emails = [f"reader{n}.{uuid.uuid4().hex[:6]}@bench.example" for n in range(entries)]
        body = {"type": "bounces", "entries": [{"email": email} for email in emails]}
        runtime.advance(60)  # a fresh minute of the bulk window
        seconds, reply = api.post("/v3/suppressions/bulk", body)
        if reply["added"] != entries or reply["skipped"]:
            raise RuntimeError(f"the bulk add answered {reply['added']} added, {len(reply['skipped'])} skipped")
        api_seconds.append(seconds)
        runtime.advance(60)
        readd_seconds.append(api.post("/v3/suppressions/bulk", body)[0])
        other = f"acct_bench_bare_{repeat}_{uuid.uuid4().hex[:6]}"
        now = runtime.clock.now()
        items = [
            (
                table,
                entry_item(
                    new_suppression(other, SuppressionType.BOUNCES, email, now, source=SuppressionSource.MANUAL)
                ),
            )
            for email in emails
        ]
        started = time.perf_counter()
        batch_write(db, items)
        bare_seconds.append(time.perf_counter() - started)
    return BulkAdd(
        entries=entries,
        repeats=repeats,
        api_seconds=api_seconds,
        bare_seconds=bare_seconds,
        readd_seconds=readd_seconds,
        ratio_median=statistics.median(a / b for a, b in zip(api_seconds, bare_seconds, strict=True)),
        readd_ratio_median=statistics.median(a / b for a, b in zip(readd_seconds, bare_seconds, strict=True)),
    )


@dataclass(frozen=True)
class Import:
    rows: int
    file_bytes: int
    seconds: float  # from the file's upload until the import is done
    rows_per_second: float
    peak_traced_bytes: int  # the most Python memory allocated at once in this process meanwhile (tracemalloc)


_IMPORT_FLOOR_SECONDS = 600.0
_IMPORT_SECONDS_PER_ROW = 0.02  # the generous bound (the emulator imports ~1,000 rows/s: 1 ms a row)
_IMPORT_PROJECTION_FACTOR = 3.0  # times the whole file at the first rows' rate
_PROGRESS_SECONDS = 15.0


def import_deadline(rows: int, elapsed: float, processed: int) -> float:
    """Seconds from the upload the import of `rows` may take, given `processed` rows done after
    `elapsed` seconds (0 before any): the longer of the per-row bound and the projection, at least
    the floor."""
    limit = max(_IMPORT_FLOOR_SECONDS, rows * _IMPORT_SECONDS_PER_ROW)
    if processed > 0:
        limit = max(limit, _IMPORT_PROJECTION_FACTOR * elapsed * rows / processed)
    return limit


def import_file(
    runtime: Runtime,
    api: ApiClient,
    recorder: CallRecorder,
    rows: int,
    progress: Callable[[str], None] = lambda step: None,
) -> Import:
    """A CSV of `rows` new addresses imported through a presigned PUT, the way a 1,000,000-row file
    goes: the worker streams it from S3 in ranged chunks. Peak memory is traced from the upload to
    the end (API, pumps and worker share this process; the emulator is another): it must not grow
    with the file."""
    tag = uuid.uuid4().hex[:6]
    with tempfile.NamedTemporaryFile("w+b", suffix=".csv") as csv_file:
        csv_file.write(b"email,reason\n")
        for n in range(rows):
            csv_file.write(f"r{n}.{tag}@import.example,bench\n".encode())
        csv_file.flush()
        size = csv_file.tell()
        runtime.advance(60)  # a fresh minute of the bulk window
        body = {"type": "bounces", "filename": f"bench-{rows}.csv"}
        _, accepted = api.post("/v3/suppressions/import", body, expect=202)
        csv_file.seek(0)
        with recorder.paused():
            return _traced_import(api, csv_file, size, accepted, rows, progress)


def _traced_import(
    api: ApiClient,
    csv_file: IO[bytes],
    size: int,
    accepted: dict[str, Any],
    rows: int,
    progress: Callable[[str], None],
) -> Import:
    tracemalloc.start()
    try:
        started = time.perf_counter()
        put = requests.put(accepted["upload_url"], data=csv_file, headers={"Content-Type": "text/csv"}, timeout=600)
        put.raise_for_status()
        first: tuple[float, int] | None = None  # (elapsed, processed) when the first rows were seen done
        told = started
        while True:
            _, job = api.get(f"/v3/suppressions/imports/{accepted['import_id']}")
            now = time.perf_counter()
            processed = int(job.get("processed_rows") or 0)
            if first is None and processed > 0:
                first = (now - started, processed)
            limit = import_deadline(rows, *(first or (0.0, 0)))
            if job["status"] in ("done", "failed") or now - started > limit:
                break
            if now - told >= _PROGRESS_SECONDS:
                told = now
                rate = processed / (now - started)
                left = f", ~{(rows - processed) / rate:.0f} s left" if rate > 0 else ""
                progress(
                    f"j. import: {processed:,} / {rows:,} rows after {now - started:.0f} s ({rate:.0f} rows/s{left};"
                    f" limit {limit:.0f} s)"
                )
            time.sleep(0.5)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if job["status"] != "done" or job["added"] != rows:
        raise RuntimeError(
            f"the {rows:,}-row import ended {job['status']} with {job.get('added')} added after {seconds:.0f} s"
            f" (limit {limit:.0f} s)"
        )
    return Import(rows, size, seconds, rows / seconds, peak)
