"""Times as the domain keeps them: aware, in UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator


def utc(value: datetime) -> datetime:
    """Naive times are taken as UTC; every key and comparison is in UTC. ValueError (a 400 from a
    request model) for a time UTC cannot hold, e.g. 0001-01-01T00:00:00+01:00."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError as error:
        raise ValueError("the time is out of range in UTC") from error


# A request model's time: parsed by pydantic, then kept in UTC (an out-of-range one is a 400).
UtcDatetime = Annotated[datetime, AfterValidator(utc)]
