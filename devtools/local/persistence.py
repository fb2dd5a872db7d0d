"""The emulator's state on disk, so `make run` keeps accepted mail and idempotency keys across restarts.

Runs in the emulator's process. moto keeps each service's state in a module-level BackendDict;
a snapshot pickles those of the services the template uses, together with a document the runtime
hands over (its stack, its stream pumps' positions, its clock and its DNS zone), while no request
is being served, and writes it atomically. On start the file, if any, is loaded back into moto's
dicts in place before the server takes a request, saying how far it has read as it goes. moto has
no persistence of its own (LocalStack's is a paid feature), and pickling its models is what its
own test suite relies on for copies of state.

What comes back: tables and their items and streams, queues and their messages, buckets, keys,
secrets, schedules, state machines and executions. Messages a consumer held when the emulator
stopped are made visible again (their consumer, the runtime, stopped with it), as SQS would
once their visibility timeout ran out.
"""

from __future__ import annotations

import io
import logging
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_der_private_key,
)

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

logger = logging.getLogger(__name__)
# The services whose state the template's resources and the functions' calls create.
SERVICES = ("dynamodb", "sqs", "s3", "kms", "secretsmanager", "iam", "stepfunctions", "scheduler", "sesv2", "ses")
FORMAT = 1  # bumped when what a snapshot holds changes; an older file is set aside, not loaded
_LOCKS = (type(threading.Lock()), type(threading.RLock()))
PROGRESS_SECONDS = 5.0  # how often a snapshot's load says how far it has read


def _private_key(der: bytes) -> Any:
    return load_der_private_key(der, password=None)


def _attribute(type_: str, value: Any) -> Any:
    """A DynamoDB attribute value (moto's DynamoType) as a snapshot stores it: its two fields."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    attribute = object.__new__(DynamoType)
    attribute.type, attribute.value = type_, value
    return attribute


class _Pickler(pickle.Pickler):
    """Pickles what moto's models hold that pickle cannot: locks (new, unheld ones) and KMS keys.

    And DynamoDB's attribute values by their two fields: pickle's own way reads an object's
    `__dict__`, and CPython (3.11 on) then makes a dict for an object that kept its attributes
    inline, which stays with the object: 64 bytes more for each of the tens of thousands of values
    a table holds (1.3 kB an item) after the first snapshot that saw it."""

    def __init__(self, file: Any, protocol: int) -> None:
        super().__init__(file, protocol=protocol)
        from moto.dynamodb.models.dynamo_type import DynamoType

        self._dynamo_type = DynamoType

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is self._dynamo_type:  # moto's class: its __init__ sets `type` and `value` only
            return _attribute, (obj.type, obj.value)
        if isinstance(obj, _LOCKS):
            return type(obj), ()
        if isinstance(obj, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
            return _private_key, (obj.private_bytes(Encoding.DER, PrivateFormat.PKCS8, NoEncryption()),)
        return NotImplemented


def _backends() -> dict[str, Any]:
    from moto.backends import get_backend

    return {service: get_backend(service) for service in SERVICES}  # type: ignore[call-overload]


def save(path: Path, runtime: dict[str, Any]) -> None:
    partial = path.with_suffix(".partial")
    # Straight to the file, not through a BytesIO and its copy: two transient buffers of the
    # snapshot's size (12 MB and more) every 30 s were what the allocator kept growing around.
    try:
        with partial.open("wb") as file:
            pickler = _Pickler(file, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dump({"format": FORMAT, "backends": _backends(), "runtime": runtime})
            pickler.clear_memo()  # its memo holds a reference to every object it pickled
            del pickler
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, path)  # a crash mid-write leaves the previous snapshot whole
    release_freed_memory()


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, where the C library is glibc (not musl, macOS or Windows)."""
    import ctypes
    import ctypes.util
    import platform

    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    result: Callable[[int], int] = trim
    return result


_TRIM = _malloc_trim()


def release_freed_memory() -> bool:
    """Gives the C heap's free pages back to the system; True when glibc did it.

    CPython's own allocator returns its empty arenas, but what it and the extension modules
    allocate from malloc (large strings, bytes, lists, dicts) stays in glibc's heaps once freed:
    glibc only shrinks a heap from its top, so a heap with a live chunk above freed megabytes keeps
    them resident, and a snapshot frees tens of megabytes every 30 s. malloc_trim(0) releases the
    free pages wherever they lie (madvise), which is what keeps the emulator's RSS flat. No
    maintained package on PyPI does this; a no-op where the C library is not glibc.
    """
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


def loading(path: Path) -> str:
    """What to say as a snapshot starts loading: the longer part of a start from a large one."""
    return f"loading state from {path} ({path.stat().st_size / 1_000_000:.1f} MB)"


def restore(
    path: Path,
    progress: Callable[[str], None] = logger.info,
    outcome: Callable[[int, str], None] = logger.log,
    *,
    every: float = PROGRESS_SECONDS,
) -> dict[str, Any] | None:
    """Loads a snapshot into moto; returns the runtime's document, or None when there is none.

    Loading takes time in proportion to the snapshot's size, which no fixed wait fits: `progress`
    hears how far it has read every `every` seconds, and `outcome` (a logging level and a message)
    how it ended: loaded in so many seconds, or set aside, named corrupt or from another version.
    """
    if not path.is_file():
        return None
    began = time.monotonic()
    try:
        with path.open("rb") as file, _reporting(_Counted(file), path.stat().st_size, progress, every) as counted:
            snapshot = pickle.load(counted)  # noqa: S301 - our own file, in the state dir
        problem = _problem(snapshot)
    except (pickle.UnpicklingError, EOFError) as exc:
        problem = f"is corrupt ({exc})"
    except (AttributeError, ImportError) as exc:  # a class moto or this package no longer has
        problem = f"was written by another version of moto or of the runtime ({exc})"
    except Exception as exc:  # whatever it is, the file is set aside and named
        problem = f"could not be loaded ({type(exc).__name__}: {exc})"
    if problem is not None:
        aside = path.with_suffix(".unreadable")
        os.replace(path, aside)
        outcome(logging.WARNING, f"the snapshot {path} {problem}: it is kept as {aside}, and the emulator starts empty")
        return None
    for service, live in _backends().items():
        saved = snapshot["backends"].get(service)
        if saved is not None:
            live.clear()  # in place: moto's modules hold these very dicts
            live.update(saved)
    _release_in_flight_messages()
    outcome(logging.INFO, f"loaded state from {path} in {time.monotonic() - began:.1f} s")
    runtime: dict[str, Any] = snapshot["runtime"]
    return runtime


def _problem(snapshot: Any) -> str | None:
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("backends"), dict):
        return "is corrupt (not a snapshot)"
    if snapshot.get("format") != FORMAT:
        return f"was written in format {snapshot.get('format')}, and this runtime reads format {FORMAT}"
    return None


class _Counted:
    """A file as pickle reads it, counting the bytes read so far."""

    def __init__(self, file: io.BufferedReader) -> None:
        self._file = file
        self.done = 0

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        self.done += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        count = self._file.readinto(buffer)
        self.done += count
        return count

    def readline(self, size: int = -1) -> bytes:
        line = self._file.readline(size)
        self.done += len(line)
        return line


@contextmanager
def _reporting(counted: _Counted, size: int, progress: Callable[[str], None], every: float) -> Iterator[_Counted]:
    """Tells `progress` how much of `size` bytes `counted` has read, every `every` seconds."""
    began = time.monotonic()
    done = threading.Event()

    def report() -> None:
        while not done.wait(every):
            share = counted.done * 100 // max(size, 1)
            progress(
                f"loading state: {counted.done / 1_000_000:.1f} of {size / 1_000_000:.1f} MB ({share}%) "
                f"after {time.monotonic() - began:.0f} s"
            )

    reporter = threading.Thread(target=report, name="snapshot-progress", daemon=True)
    reporter.start()
    try:
        yield counted
    finally:
        done.set()
        reporter.join()


def _release_in_flight_messages() -> None:
    from moto.sqs.models import sqs_backends

    for account in sqs_backends.values():
        for backend in account.values():
            for queue in backend.queues.values():
                for message in list(queue._messages):  # moto keeps no other handle on them
                    if not message.visible and not message.delayed and message.receipt_handle:
                        backend.change_message_visibility(queue.name, message.receipt_handle, 0)


class SnapshotGate:
    """WSGI middleware: counts requests, and lets a snapshot wait until none is in progress and
    hold new ones back while it is taken, so the state it writes is one moment's.

    A long poll (an SQS receive waits up to 20 s for a message) is a request in progress: a
    snapshot calls `wake` once it holds new requests back, which ends the polls in progress
    (wakes.py), so that it waits for them about a second, not for their 20 s with every call of
    the API held behind it."""

    def __init__(self, app: WSGIApplication, wake: Callable[[], None] | None = None) -> None:
        self._app = app
        self._wake = wake
        self._idle = threading.Condition()
        self._active = 0
        self._closed = False
        self.requests = 0  # served since start: a snapshot with nothing new can be skipped

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        with self._idle:
            self._idle.wait_for(lambda: not self._closed)
            self._active += 1
            self.requests += 1
        try:
            # Read the whole body while counted: a response is produced before it is iterated.
            return list(self._app(environ, start_response))
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def quiesced(self, work: Callable[[], None]) -> None:
        with self._idle:
            self._closed = True
            waiting = self._active > 0
        if waiting and self._wake is not None:
            self._wake()
        with self._idle:
            self._idle.wait_for(lambda: self._active == 0)
        try:
            work()
        finally:
            with self._idle:
                self._closed = False
                self._idle.notify_all()
