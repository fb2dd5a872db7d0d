"""ThreadedMotoServer's WSGI application, wrapped in the emulator's middleware.

Why: moto's ThreadedMotoServer takes no application: its thread builds
`DomainDispatcherApplication(create_backend_app)` itself, by a global name of
moto.moto_server.threaded_moto_server. The emulator needs middleware around that app (DynamoDB
one request at a time, an extension's own paths: devtools/local/emulator.py).

How: `install(wrap)` rebinds that global, before the server starts, to a factory that returns
`wrap(<moto's app>)`. Once per process (the emulator's child process).

Guard: `install()` checks that ThreadedMotoServer still builds its app by that name and raises
otherwise, so a moto upgrade stops the emulator loudly instead of serving without the middleware.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moto.moto_server import threaded_moto_server

from devtools.moto_patches.guarded import GuardedPatch, Replacement

_wrap: Callable[[Any], Any] | None = None  # the emulator's middleware, given to install()


def _dispatcher(*args: Any, **kwargs: Any) -> Any:
    app = _PATCH.original(_DISPATCHER)(*args, **kwargs)
    return app if _wrap is None else _wrap(app)


_DISPATCHER = Replacement(threaded_moto_server, "DomainDispatcherApplication", _dispatcher)
_PATCH = GuardedPatch(
    "devtools/moto_patches/server_app.py",
    [_DISPATCHER],
    {  # what it relies on, as moto 5.2.5 writes it
        "ThreadedMotoServer._server_entry": (
            lambda: threaded_moto_server.ThreadedMotoServer._server_entry,
            ("app = DomainDispatcherApplication(create_backend_app)",),
        ),
    },
    holds={
        "moto.moto_server.threaded_moto_server.DomainDispatcherApplication": lambda: (
            "DomainDispatcherApplication" in vars(threaded_moto_server)
        )
    },
)
check_internals = _PATCH.check_internals


def install(wrap: Callable[[Any], Any]) -> None:
    """Every ThreadedMotoServer this process starts afterwards serves `wrap(moto's app)`."""
    global _wrap  # the one middleware of the process
    _wrap = wrap
    _PATCH.install()
