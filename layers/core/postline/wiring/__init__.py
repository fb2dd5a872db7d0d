"""Where clients, stores and services are built: one composition root per area, lazily.

    wiring/registry.py   settings, the clock, AWS clients and the cache that reset() forgets
    wiring/shared.py     the shared kernel's adapters (ids, the meter, MX lookups, delayed queues)
    wiring/<area>.py     an area's adapters and services, e.g. `wiring.sending.send_service()`

Handlers import the roots they use (`from postline.wiring import sending`); nothing is built at
import. A root imports the roots of the areas it assembles from, so adding an area adds a root and
edits none. This module is the bootstrap every function calls first (`cold_start`), and names the
registry's calls that the runtime, the CLI and the tests use.
"""

from __future__ import annotations

import gc

from postline.deployment import function_settings
from postline.wiring.registry import (
    Groups,
    bulk_client,
    client,
    clock,
    require,
    reset,
    set_clock,
    settings,
    settings_scope,
)

__all__ = [
    "Groups",
    "bulk_client",
    "client",
    "clock",
    "cold_start",
    "require",
    "reset",
    "set_clock",
    "settings",
    "settings_scope",
]


def cold_start(module_file: str) -> Groups:
    """The groups the function of `module_file` (its __file__) declares, loaded now. Called by
    every handler right after its imports: in a Lambda's init the garbage collector goes back on
    (postline/__init__.py), after the objects the imports made are frozen: they live as long as the
    container, and without the freeze the first collection walks all of them."""
    try:
        return require(*function_settings(module_file))
    finally:
        if not gc.isenabled():
            gc.freeze()
            gc.enable()
