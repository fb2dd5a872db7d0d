"""A sending domain's complaint rate from the roll-ups: content_checks' ComplaintRates port."""

from __future__ import annotations

from datetime import datetime, timedelta

from postline.metrics.domain import Counter, Dimension, Tally, series_key, utc_days
from postline.metrics.ports import Rollups
from postline.metrics.service import quarter_tallies

WINDOW = timedelta(days=30)


class RollupComplaintRates:
    def __init__(self, rollups: Rollups, *, budget_seconds: float = 2.0) -> None:
        self._rollups = rollups
        self._budget_seconds = budget_seconds

    def complaint_rate(self, account_id: str, domain: str, now: datetime) -> float | None:
        """complained/sent of the domain's live mail over the last 30 days; None when nothing was sent."""
        items = self._rollups.read(
            account_id,
            "live",
            utc_days(now - WINDOW, now),
            series=series_key(Dimension.SENDING_DOMAIN, domain.lower()),
            budget_seconds=self._budget_seconds,
        )
        total = Tally()
        for tally in quarter_tallies(items).values():
            total.merge(tally)
        sent = total.get(Counter.SENT)
        return total.get(Counter.COMPLAINED) / sent if sent else None
