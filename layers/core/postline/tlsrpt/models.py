"""The relay queue's other job: run the TLS-RPT reports (the daily schedule's, or `postline tlsrpt`'s)."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Literal

from postline.shared.base import Model


class TlsReportJob(Model):
    kind: Literal["tls_reports"] = "tls_reports"
    scheduled_at: datetime | None = None  # reports the day before it (the Scheduler's scheduled time)
    day: date | None = None  # or exactly this day (by hand)

    @staticmethod
    def is_one(body: str) -> bool:
        """Whether a relay queue message is this job rather than a delivery (DispatchJob)."""
        try:
            data = json.loads(body)
        except ValueError:
            return False
        return isinstance(data, dict) and data.get("kind") == "tls_reports"
