"""Waiting in tests: `eventually` polls until something holds, and fails saying what it waited for.

    job = eventually(lambda: finished(export_id), 60, waiting_for="the export to finish")

Every test that waits for another thread or process to get somewhere waits with it: no test
sleeps for a while and hopes, and none gives up quietly when the time is up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def eventually(
    probe: Callable[[], T],
    timeout: float = 10.0,
    *,
    interval: float = 0.05,
    waiting_for: str | None = None,
) -> T:
    """Calls `probe` until it returns a truthy value, and returns that value.

    An exception raised by `probe` counts as "not yet" (so an assert in it can say what it saw).
    The probe is called at least once, and again every `interval` seconds until `timeout` seconds
    have passed; then this raises AssertionError naming what it waited for (`waiting_for`, else
    the probe's name) and the last value the probe returned or the last exception it raised (also
    chained as the cause). Only Exception counts: pytest.fail() or Ctrl-C in a probe ends the wait.
    """
    what = waiting_for or getattr(probe, "__qualname__", repr(probe))
    deadline = time.monotonic() + timeout
    tries = 0
    while True:
        tries += 1
        error: Exception | None = None
        try:
            value = probe()
        except Exception as raised:
            error = raised
            last = f"last raised {type(raised).__name__}: {raised}" if str(raised) else f"last raised {raised!r}"
        else:
            if value:
                return value
            last = f"last returned {value!r}"
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            counted = f"{tries} tries" if tries > 1 else "1 try"
            raise AssertionError(f"gave up waiting for {what} after {timeout:g} s ({counted}); {last}") from error
        time.sleep(min(interval, remaining))


class SesEventDestinations:
    """An SESv2 client on moto, except CreateConfigurationSetEventDestination, which moto lacks (an IP
    pool's SES counterpart makes one: ip_pools/ses.py): that call is recorded here once its
    configuration set is found in moto; every other goes to moto."""

    def __init__(self, sesv2: Any) -> None:
        self._sesv2 = sesv2
        self.destinations: dict[str, dict[str, Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sesv2, name)

    def create_configuration_set_event_destination(self, **request: Any) -> dict[str, Any]:
        self._sesv2.get_configuration_set(ConfigurationSetName=request["ConfigurationSetName"])  # it must exist
        self.destinations[request["ConfigurationSetName"]] = request["EventDestination"]
        return {}
