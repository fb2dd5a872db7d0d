"""A crash at every AWS call of the daily workers, and a transient AWS error at each: the day's pass
deletes (or packs) exactly what it should, whatever run dies where (tests/faults/crash.py).

Their workloads move the clock by days, which must not age the data of the tests sharing the
session's runtime: they run in a child runtime of their own (tests/faults/child.py), struck through
a file (ChildFault). A daily run that dies is not retried locally (the runtime does not emulate
Lambda's asynchronous retries): the next day's run is its redelivery, and each pass is written to
go on where a run stopped (retention/service.py, metrics/packing.py).
- RetentionFunction: on Free (30 days), a message 31 days old is gone with its events, one 11 days
  old is kept with all of its.
- MetricsPackingFunction: two sends counted, three days on (closed days packed), the summary and
  hourly series read exactly as before, and `postline metrics pack` finds nothing left to pack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Spawn
from tests.e2e.test_metrics_packing import _figures
from tests.e2e.test_retention import DAY, Child
from tests.faults.crash import ChildFault, Fault, sweep
from tests.support import eventually

pytestmark = pytest.mark.e2e


@dataclass
class Daily:
    child: Child
    fault_file: Path

    def settle(self, days: float) -> None:
        self.child.advance(days * DAY)
        self.child.drain()

    def arm(self, function: str, k: int, fault: Fault) -> ChildFault:
        return ChildFault(self.fault_file, function, k, fault)


@pytest.fixture(scope="module")
def daily(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daily]:
    state_dir: Path = tmp_path_factory.mktemp("faults-daily-state")
    fault_file = state_dir.parent / f"{state_dir.name}-fault.json"
    with spawn(state_dir, "--fault-file", str(fault_file), module="tests.faults.child") as process:
        child = Child(process)
        assert child.cli("account", "set-plan", child.account_id, "free")["plan"] == "free"
        yield Daily(child, fault_file)


def retention(daily: Daily, case: str) -> None:
    old = daily.child.send()
    daily.settle(20)  # a run with nothing to delete yet
    kept = daily.child.send()
    kept_history = daily.child.history(kept)
    daily.settle(11)  # `old` is 31 days old (and the downgrade's grace over): this run deletes it
    daily.settle(1)  # the next day's run goes on where a run that died stopped
    assert daily.child.history(old) == (404, 0), f"{case}: {old} kept"
    assert daily.child.history(kept) == kept_history, f"{case}: {kept} not kept whole"


def packing(daily: Daily, case: str) -> None:
    moved = daily.child.control.post("/_local/clock/advance", json={"seconds": 0})
    now = datetime.fromisoformat(moved.json()["now"])
    since = (now - timedelta(days=1)).astimezone(UTC).isoformat()
    daily.child.send()
    daily.child.send()

    def counted() -> dict[str, Any]:
        figures = _figures(daily.child, since)
        assert figures["delivery"]["sent"] == 2 and figures["delivery"]["delivered"] == 2, figures
        return figures

    before = eventually(counted, 20, waiting_for=f"{case}: both sends to be counted")
    daily.settle(3)  # the closed days are packed
    daily.settle(1)  # the next day's run goes on where a run that died stopped
    assert _figures(daily.child, since) == before, case
    rerun = daily.child.cli("metrics", "pack", daily.child.account_id)
    assert rerun["series"] == 0, f"{case}: the schedule left {rerun} to pack"


WORKLOADS: dict[str, Callable[[Daily, str], None]] = {
    "MetricsPackingFunction": packing,
    "RetentionFunction": retention,
}


@pytest.mark.parametrize("worker", sorted(WORKLOADS))
def test_a_fault_at_every_call_of_a_daily_worker_deletes_and_packs_exactly(daily: Daily, worker: str) -> None:
    sweep(worker, lambda case: WORKLOADS[worker](daily, case), daily.arm)
