"""The runtime's schedule expressions, without a runtime: when each rate(), cron() and at() is due.

Pure functions of the runtime's schedule expressions: no emulator, no clock.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from devtools.local.expressions import At, parse


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("expression", "after", "due"),
    [
        ("rate(1 minute)", "2030-01-01T10:00:00", "2030-01-01T10:01:00"),
        ("rate(5 minutes)", "2030-01-01T10:02:30", "2030-01-01T10:05:00"),
        ("rate(2 hours)", "2030-01-01T10:00:00", "2030-01-01T12:00:00"),
        ("rate(1 day)", "2030-01-01T10:00:00", "2030-01-02T00:00:00"),
        ("cron(0 12 * * ? *)", "2030-01-01T12:00:00", "2030-01-02T12:00:00"),
        ("cron(0 12 * * ? *)", "2030-01-01T11:59:30", "2030-01-01T12:00:00"),
        ("cron(15,45 8-9 * * ? *)", "2030-01-01T08:20:00", "2030-01-01T08:45:00"),
        ("cron(*/20 * * * ? *)", "2030-01-01T10:41:00", "2030-01-01T11:00:00"),
        ("cron(5/20 * * * ? *)", "2030-01-01T10:26:00", "2030-01-01T10:45:00"),
        ("cron(0 9 ? * MON-FRI *)", "2030-01-04T09:00:00", "2030-01-07T09:00:00"),  # Friday -> Monday
        ("cron(0 9 ? * 1 *)", "2030-01-01T00:00:00", "2030-01-06T09:00:00"),  # 1 is Sunday
        ("cron(0 0 1 FEB ? *)", "2030-03-01T00:00:00", "2031-02-01T00:00:00"),
        ("cron(0 0 29 2 ? *)", "2030-01-01T00:00:00", "2032-02-29T00:00:00"),
        ("cron(0 0 1 1 ? 2035)", "2030-01-01T00:00:00", "2035-01-01T00:00:00"),
        ("at(2030-06-01T08:30:00)", "2030-01-01T00:00:00", "2030-06-01T08:30:00"),
    ],
)
def test_the_next_due_time_is_strictly_after(expression: str, after: str, due: str) -> None:
    assert parse(expression).next_after(_utc(after)) == _utc(due)


def test_cron_and_at_follow_their_time_zone() -> None:
    winter = _utc("2030-01-15T00:00:00")

    assert parse("cron(0 9 * * ? *)", "Europe/Paris").next_after(winter) == _utc("2030-01-15T08:00:00")
    assert parse("at(2030-07-01T09:00:00)", "Europe/Paris") == At(_utc("2030-07-01T07:00:00"))


def test_nothing_is_due_after_the_last_time() -> None:
    assert parse("at(2030-01-01T00:00:00)").next_after(_utc("2030-01-01T00:00:00")) is None
    assert parse("cron(0 0 1 1 ? 2030)").next_after(_utc("2030-06-01T00:00:00")) is None


@pytest.mark.parametrize(
    "expression",
    [
        "rate(0 minutes)",
        "rate(1 week)",
        "cron(0 12 * * *)",
        "cron(0 12 * * MON *)",
        "cron(0 12 ? * ? *)",
        "cron(0 12 L * ? *)",
        "cron(0 12 ? * 6#3 *)",
        "cron(60 * * * ? *)",
        "every day",
    ],
)
def test_expressions_the_runtime_cannot_honour_are_refused(expression: str) -> None:
    with pytest.raises(ValueError, match=re.escape(expression)):  # the message names the expression
        parse(expression)
