"""The garbage collector in the embedded runtime's two long-lived processes: what survived a full
collection is frozen, so no later collection walks it again.

Why: the runtime's process holds every function's modules, clients and models (in AWS each
function has a small process of its own, whose init objects postline/__init__.py freezes), and the
emulator's holds every table, item and stream record. CPython's full (generation 2) collection
walks every tracked object, so its pause grows with all of that: measured while the webhooks
section ran, 6 full collections in the runtime's process took 3.3 s (the longest 888 ms) and 5 in
the emulator's 0.9 s (the longest 392 ms), each stopping every thread of its process, which put
the pauses straight into the first webhooks' p99.

How: `gc.freeze()` once the process has started (imports and start-up done), and again whenever a
full collection ends (a `gc.callbacks` hook): each long-lived object is walked by at most one full
collection, and a collection walks only what was made since the last one. Reference counting still
frees a frozen object as soon as nothing refers to it; only cyclic garbage among frozen objects
stays (long-lived objects seldom become such garbage here; the runtime and the emulator are
development processes). `uninstall()` unfreezes (tests start and stop runtimes in one process).
"""

from __future__ import annotations

import gc
from typing import Any

_FULL = 2  # the oldest generation


def _freeze_after_full(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info.get("generation") == _FULL:
        gc.freeze()  # only moves lists: safe inside the collector's own callback


def install() -> None:
    """Freezes what exists now and what survives each full collection from now on (idempotent)."""
    gc.collect()
    gc.freeze()
    if _freeze_after_full not in gc.callbacks:
        gc.callbacks.append(_freeze_after_full)


def uninstall() -> None:
    while _freeze_after_full in gc.callbacks:
        gc.callbacks.remove(_freeze_after_full)
    gc.unfreeze()


def installed() -> bool:
    return _freeze_after_full in gc.callbacks
