"""The registry every composition root builds through: settings, the clock, AWS clients, and the
cache of what is built once per process, which `reset()` forgets.

Clients and stores (they hold connections and caches) are built once per process by the accessors
marked `@built_once`, which also registers them, so `reset()` forgets every one of them (the
embedded runtime and the tests call it after changing the environment); services are cheap and
built per call. The embedded runtime installs its movable clock with `set_clock`.

Accessors read their settings with `settings(Group)` (postline/config.py). Each function loads
the groups it declares as it is imported (`require`), and each accessor remembers the groups its
build read, so the embedded runtime can hold an invocation to its function's declaration
(`settings_scope`) even when the accessor was built, and cached, by another function.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import lru_cache, wraps
from typing import Any, TypeVar

import boto3
from botocore.config import Config

from postline.config import SettingsError, SettingsGroup
from postline.shared.clock import SystemClock
from postline.shared.ports import Clock

_F = TypeVar("_F", bound=Callable[..., Any])
_G = TypeVar("_G", bound=SettingsGroup)
Groups = tuple[type[SettingsGroup], ...]
_BUILT: list[Any] = []  # every cached accessor, for reset()
_reads: ContextVar[set[type[SettingsGroup]] | None] = ContextVar("settings_reads", default=None)
_allowed: ContextVar[frozenset[type[SettingsGroup]] | None] = ContextVar("settings_allowed", default=None)


def _note(groups: Iterable[type[SettingsGroup]]) -> None:
    """Records settings groups as read by what is being built, or by the current invocation."""
    groups = frozenset(groups)
    allowed = _allowed.get()
    if allowed is not None and not groups <= allowed:
        names = ", ".join(sorted(group.__name__ for group in groups - allowed))
        raise SettingsError(f"this function reads {names} but does not declare it (postline/deployment.py)")
    reads = _reads.get()
    if reads is not None:
        reads.update(groups)


def built_once(maxsize: int | None = None) -> Callable[[_F], _F]:
    """Caches what the accessor builds (per argument), registers it with reset(), and notes the
    settings groups its build read each time it is called."""

    def register(accessor: _F) -> _F:
        read: set[type[SettingsGroup]] = set()

        @lru_cache(maxsize=maxsize)
        def build(*args: Any) -> Any:
            token = _reads.set(set())
            try:
                value = accessor(*args)
                read.update(_reads.get() or ())
            finally:
                _reads.reset(token)
            return value

        @wraps(accessor)
        def call(*args: Any) -> Any:
            value = build(*args)
            _note(read)
            return value

        call.cache_clear = build.cache_clear  # type: ignore[attr-defined]
        _BUILT.append(call)
        return call  # type: ignore[return-value]

    return register


# 64 connections a client (botocore keeps 10): the list worker sends 8 pages side by side, each
# committing its chunks 8 at a time (lists/send_service.py, shared/parallel.py).
BOTO_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=10, max_pool_connections=64
)
_clock: Clock = SystemClock()


def set_clock(clock: Clock) -> None:
    """The embedded runtime installs its movable clock here."""
    global _clock  # the single process-wide clock is the point
    _clock = clock


class CurrentClock:
    """The process's clock as it is at each call: for what is built once and outlives a set_clock."""

    def now(self) -> datetime:
        return _clock.now()


def clock() -> Clock:
    return _clock


def reset() -> None:
    """Forget every built client and store (settings changed, e.g. a test's own tables)."""
    for accessor in _BUILT:
        accessor.cache_clear()


@built_once()
def _loaded(group: type[SettingsGroup]) -> SettingsGroup:
    return group.from_env(os.environ)


def settings(group: type[_G]) -> _G:
    """The group's values from the environment; a missing variable raises SettingsError."""
    _note((group,))
    value = _loaded(group)
    assert isinstance(value, group)
    return value


def require(*groups: type[SettingsGroup]) -> Groups:
    """Loads every group now: at import, a function's missing variable fails its cold start."""
    for group in groups:
        settings(group)
    return groups


@contextmanager
def settings_scope(groups: Iterable[type[SettingsGroup]]) -> Iterator[None]:
    """Within it, reading a group outside `groups` raises SettingsError, as a function whose
    environment lacks the group's variables would in AWS. The embedded runtime wraps each
    invocation in its function's declaration; in Lambda nothing needs to."""
    token = _allowed.set(frozenset(groups))
    try:
        yield
    finally:
        _allowed.reset(token)


@built_once()
def client(service: str) -> Any:
    # AWS_ENDPOINT_URL (moto, LocalStack) is honoured by boto3 itself; nothing here changes per target.
    return boto3.session.Session().client(service, config=BOTO_CONFIG)


@built_once()
def bulk_client(service: str) -> Any:
    """A client for requests whose items this code builds (the import worker's lists, the message
    store): botocore's check
    of each request against the API model, which walks every attribute of every item, is skipped;
    DynamoDB still validates each request. Its batch reads and writes (and SQS's batch sends) send
    their bodies as built (shared/dynamo_wire.py: botocore's serializer walks every attribute again)."""
    from postline.shared.dynamo_wire import send_as_built

    return send_as_built(
        boto3.session.Session().client(service, config=BOTO_CONFIG.merge(Config(parameter_validation=False)))
    )


@built_once()
def presigning_s3() -> Any:
    """S3 for the files users download or upload with presigned URLs: those must be SigV4 (botocore
    may presign S3 with SigV2 otherwise)."""
    return boto3.session.Session().client("s3", config=BOTO_CONFIG.merge(Config(signature_version="s3v4")))
