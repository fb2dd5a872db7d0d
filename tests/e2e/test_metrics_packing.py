"""The daily packing pass on the embedded runtime: the development account sends, the metrics
consumer counts it, the movable clock goes three days on, the schedule fires
`MetricsPackingFunction`, and the metrics read exactly as before; `postline metrics pack` then
finds the day packed already. A child runtime of its own: moving its clock by days must not age
any other test's data."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Spawn
from tests.e2e.test_retention import DAY, Child
from tests.support import eventually

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def child(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Child]:
    state_dir: Path = tmp_path_factory.mktemp("packing-state")
    with spawn(state_dir) as process:
        yield Child(process)


def _figures(child: Child, since: str) -> dict[str, Any]:
    """The summary's and the hourly timeseries' counts in +05:45 (no period: it moves with the clock)."""
    window = {"since": since, "timezone": "Asia/Kathmandu"}
    summary = child.test.get("/v3/metrics/summary", params=window)
    series = child.test.get("/v3/metrics/timeseries", params={**window, "resolution": "hour", "group_by": "status"})
    assert summary.status_code == series.status_code == 200, (summary.text, series.text)
    body = series.json()
    return {
        "delivery": summary.json()["delivery"],
        "engagement": summary.json()["engagement"],
        "hours": [point for point in body["data"] if point["sent"]],
        "groups": body["groups"],
    }


def test_the_daily_schedule_packs_closed_days_and_the_figures_stay(child: Child) -> None:
    moved = child.control.post("/_local/clock/advance", json={"seconds": 0})
    assert moved.status_code == 200, moved.text
    now = datetime.fromisoformat(moved.json()["now"])
    since = (now - timedelta(days=1)).astimezone(UTC).isoformat()
    child.send()
    child.send()

    def counted() -> dict[str, Any]:
        figures = _figures(child, since)
        assert figures["delivery"]["sent"] == 2 and figures["delivery"]["delivered"] == 2, figures
        return figures

    before = eventually(counted, 20, waiting_for="both sends to be counted")
    child.advance(3 * DAY)  # the daily schedules fire: packing (and retention, which keeps 3 days)
    child.drain()
    assert _figures(child, since) == before
    rerun = child.cli("metrics", "pack", child.account_id)
    assert rerun["packed_through"] is not None and rerun["packed_through"] >= f"{now.astimezone(UTC).date()}"
    assert rerun["series"] == 0  # the schedule had packed them
    assert _figures(child, since) == before
