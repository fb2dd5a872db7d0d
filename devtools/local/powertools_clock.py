"""Powertools' idempotency records on the runtime's clock.

Why: Powertools' idempotency persistence reads the wall clock (`dt.datetime.now()`) for a record's
expiry and its in-progress window, while everything else the runtime runs reads its movable clock
(`wiring.clock()`), and the emulator sweeps items past their TTL on that clock
(devtools/moto_patches/ttl_sweep.py). Once the clock had been moved a day ahead, a record written a
second ago was past its TTL there and swept: a retried send found no record. In Lambda there is one
clock; here the records follow the runtime's.

How: the persistence modules' `dt` (each does `import datetime as dt`) becomes a copy of the datetime
module whose `datetime.now()` is the runtime's clock, as a naive local time when asked without a
zone, as `datetime.now()` answers. In Lambda nothing changes: this module is the runtime's.

Guard: `install()` checks that those modules still read the time as `dt.datetime.now()` through a
module-level `dt`, and raises otherwise, so an upgrade that reads it another way stops the runtime.
"""

from __future__ import annotations

import datetime
import inspect
import types
from typing import Any

from aws_lambda_powertools.utilities.idempotency.persistence import base, datarecord, dynamodb

from postline import wiring

_MODULES = (base, datarecord, dynamodb)


class _RuntimeDatetime(datetime.datetime):
    @classmethod
    def now(cls, tz: datetime.tzinfo | None = None) -> Any:
        current = wiring.clock().now()
        return current.astimezone(tz) if tz is not None else current.astimezone().replace(tzinfo=None)


_ON_RUNTIME_CLOCK = types.ModuleType("datetime_on_the_runtime_clock")
_ON_RUNTIME_CLOCK.__dict__.update({name: value for name, value in vars(datetime).items() if not name.startswith("__")})
_ON_RUNTIME_CLOCK.datetime = _RuntimeDatetime  # type: ignore[attr-defined]


def install() -> None:
    for module in _MODULES:
        if getattr(module, "dt", None) is _ON_RUNTIME_CLOCK:
            continue
        if getattr(module, "dt", None) is not datetime or "dt.datetime.now()" not in inspect.getsource(module):
            raise RuntimeError(
                f"{module.__name__}: no longer reads the time as dt.datetime.now(); "
                "devtools/local/powertools_clock.py needs a look"
            )
        module.dt = _ON_RUNTIME_CLOCK  # type: ignore[attr-defined]
