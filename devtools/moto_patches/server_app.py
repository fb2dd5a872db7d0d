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

import inspect
from collections.abc import Callable
from typing import Any

from moto.moto_server import threaded_moto_server

_NAME = "DomainDispatcherApplication"
# What this patch relies on, as moto 5.2.5 writes ThreadedMotoServer._server_entry.
_EXPECTED_SOURCE = "app = DomainDispatcherApplication(create_backend_app)"


def check_internals() -> None:
    source = inspect.getsource(threaded_moto_server.ThreadedMotoServer._server_entry)
    if _NAME not in vars(threaded_moto_server) or _EXPECTED_SOURCE not in source:
        raise RuntimeError(
            "moto changed how ThreadedMotoServer builds its app, which devtools/moto_patches/server_app.py "
            "patches; review the patch"
        )


def install(wrap: Callable[[Any], Any]) -> None:
    """Every ThreadedMotoServer this process starts afterwards serves `wrap(moto's app)`."""
    check_internals()
    namespace = vars(threaded_moto_server)
    dispatcher = namespace[_NAME]
    namespace[_NAME] = lambda *args, **kwargs: wrap(dispatcher(*args, **kwargs))
