"""moto server's choice of backend for a request, worked out once per host instead of per request.

Why: for every request, moto's `DomainDispatcherApplication.get_application` asks
`get_backend_for_host`, which lists moto's package directory and stats each of its ~150 entries
(`backends.list_of_moto_modules`), then tries every service's URL patterns, all under one lock
that every request of every service takes. A profile of the embedded pipeline delivering 500
messages counted 362,742 `stat` and 3,470 `listdir` calls: about 20 ms of wall time per request
once the threads contend for the interpreter (each system call hands it over), serialized by that
lock. The answer depends only on the host and on moto's installed modules, neither of which
changes while the server runs.

How: `list_of_moto_modules` is read once and kept as a tuple (it is only used for membership),
and each server's `get_backend_for_host` keeps its answer per host.

Guard: `install()` checks that moto still routes through those two functions as 5.2.5 does, and
raises otherwise.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from moto import backends
from moto.moto_server.werkzeug_app import DomainDispatcherApplication

_EXPECTED_SOURCE = {
    "backends.list_of_moto_modules": ("os.listdir(path)",),
    "DomainDispatcherApplication.get_backend_for_host": (
        "if host in backends.list_of_moto_modules():",
        "for backend, pattern in self.backend_url_patterns:",
    ),
    "DomainDispatcherApplication.get_application": ("backend = self.get_backend_for_host(host)",),
}
_originals: dict[str, Callable[..., Any]] = {}
_NO_ANSWER = object()


@functools.cache
def _moto_modules() -> tuple[str, ...]:
    return tuple(_originals["list_of_moto_modules"]())


def _list_of_moto_modules() -> Iterable[str]:
    return _moto_modules()


def _get_backend_for_host(self: DomainDispatcherApplication, host: str | None) -> Any:
    answers: dict[str | None, Any] = vars(self).setdefault("_postline_backend_for_host", {})
    answer = answers.get(host, _NO_ANSWER)
    if answer is _NO_ANSWER:
        answer = answers[host] = _originals["get_backend_for_host"](self, host)
    return answer


def check_internals() -> None:
    sources = {
        "backends.list_of_moto_modules": inspect.getsource(
            _originals.get("list_of_moto_modules", backends.list_of_moto_modules)
        ),
        "DomainDispatcherApplication.get_backend_for_host": inspect.getsource(
            _originals.get("get_backend_for_host", DomainDispatcherApplication.get_backend_for_host)
        ),
        "DomainDispatcherApplication.get_application": inspect.getsource(DomainDispatcherApplication.get_application),
    }
    for name, expected in _EXPECTED_SOURCE.items():
        if not all(line in sources[name] for line in expected):
            raise RuntimeError(
                f"moto changed {name}, which devtools/moto_patches/moto_routing.py relies on; review the patch"
            )


def install() -> None:
    """Patches moto in this process (idempotent)."""
    if _originals:
        return
    check_internals()
    _originals["list_of_moto_modules"] = backends.list_of_moto_modules
    _originals["get_backend_for_host"] = DomainDispatcherApplication.get_backend_for_host
    backends.list_of_moto_modules = _list_of_moto_modules
    DomainDispatcherApplication.get_backend_for_host = _get_backend_for_host  # type: ignore[method-assign]


def uninstall() -> None:
    if not _originals:
        return
    backends.list_of_moto_modules = _originals.pop("list_of_moto_modules")
    DomainDispatcherApplication.get_backend_for_host = _originals.pop(  # type: ignore[method-assign]
        "get_backend_for_host"
    )
    _moto_modules.cache_clear()


@contextmanager
def installed() -> Iterator[None]:
    """The patch for a block (tests), as it was before afterwards."""
    already = bool(_originals)
    install()
    try:
        yield
    finally:
        if not already:
            uninstall()
