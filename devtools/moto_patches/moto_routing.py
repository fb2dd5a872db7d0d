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
from collections.abc import Iterable
from typing import Any

from moto import backends
from moto.moto_server.werkzeug_app import DomainDispatcherApplication

from devtools.moto_patches.guarded import GuardedPatch, Replacement

_NO_ANSWER = object()


@functools.cache
def _moto_modules() -> tuple[str, ...]:
    return tuple(_PATCH.original(_MODULES)())


def _list_of_moto_modules() -> Iterable[str]:
    return _moto_modules()


def _get_backend_for_host(self: DomainDispatcherApplication, host: str | None) -> Any:
    answers: dict[str | None, Any] = vars(self).setdefault("_postline_backend_for_host", {})
    answer = answers.get(host, _NO_ANSWER)
    if answer is _NO_ANSWER:
        answer = answers[host] = _PATCH.original(_BACKEND_FOR_HOST)(self, host)
    return answer


_MODULES = Replacement(backends, "list_of_moto_modules", _list_of_moto_modules)
_BACKEND_FOR_HOST = Replacement(DomainDispatcherApplication, "get_backend_for_host", _get_backend_for_host)
_PATCH = GuardedPatch(
    "devtools/moto_patches/moto_routing.py",
    [_MODULES, _BACKEND_FOR_HOST],
    {  # what it relies on, as moto 5.2.5 writes it
        "backends.list_of_moto_modules": (lambda: backends.list_of_moto_modules, ("os.listdir(path)",)),
        "DomainDispatcherApplication.get_backend_for_host": (
            lambda: DomainDispatcherApplication.get_backend_for_host,
            (
                "if host in backends.list_of_moto_modules():",
                "for backend, pattern in self.backend_url_patterns:",
            ),
        ),
        "DomainDispatcherApplication.get_application": (
            lambda: DomainDispatcherApplication.get_application,
            ("backend = self.get_backend_for_host(host)",),
        ),
    },
)
install, check_internals, installed = _PATCH.install, _PATCH.check_internals, _PATCH.installed


def uninstall() -> None:
    _PATCH.uninstall()
    _moto_modules.cache_clear()
