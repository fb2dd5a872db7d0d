"""Holding the embedded runtime's pumps (its event source mappings) while acceptance is measured.

In AWS the dispatcher is another Lambda on other machines; in the embedded runtime it shares this
process and the one emulator with the API. Acceptance is measured with it held, so a send's time
is the API's own; the pipeline is then measured on its own (and together with sends).

The runtime has no public switch for this: holding reaches into its pumps (Runtime._pumps and
each pump's _poll). If that shape changes, `held` yields False and the report says the pipeline
ran during acceptance.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from devtools.local.pumps import StreamPump
from devtools.local.runtime import Runtime

logger = logging.getLogger(__name__)
_IDLE_WAIT_SECONDS = 0.05
# A receive begun before holding ends this soon after a wake (the emulator's SQS step re-checks each second).
_WOKEN_WITHIN_SECONDS = 1.0
_SETTLE_SECONDS = 30.0
OUTBOX_FUNCTION = "SendOutboxFunction"  # the messages table's stream consumer that queues jobs


def _pumps(runtime: Runtime) -> list[Any]:
    pumps = getattr(runtime, "_pumps", None)
    if not isinstance(pumps, list) or not all(hasattr(pump, "_poll") and hasattr(pump, "_stopping") for pump in pumps):
        return []
    return pumps


@contextmanager
def held(runtime: Runtime) -> Iterator[bool]:
    """While the block runs, no pump takes work (queued jobs wait); True if holding worked."""
    pumps = _pumps(runtime)
    if not pumps:
        logger.warning("cannot hold the runtime's pumps: the pipeline keeps running")
        yield False
        return
    for pump in pumps:
        setattr(pump, "_poll", _idle(pump))  # noqa: B010 - an instance attribute shadows the method
    try:
        runtime.wake_polls()
        time.sleep(_WOKEN_WITHIN_SECONDS + 0.2)
        runtime.drain(_SETTLE_SECONDS)  # a batch received just before holding finishes
        yield True
    finally:
        for pump in pumps:
            vars(pump).pop("_poll", None)


def _idle(pump: Any) -> Any:
    def wait() -> None:
        pump._stopping.wait(_IDLE_WAIT_SECONDS)

    return wait


def skip_outbox(runtime: Runtime) -> list[dict[str, Any]]:
    """While held: the outbox's stream pump moves past the messages stored so far, whose jobs are then
    never queued (an acceptance-only section's messages are not delivered, as emptying the send
    queue did before the outbox queued their jobs); the stream records the outbox would have taken."""
    return [
        record
        for pump in _pumps(runtime)
        if isinstance(pump, StreamPump) and pump.key.startswith(f"{OUTBOX_FUNCTION} ")
        for record in pump.skip_unread()
    ]
