"""Schedule expressions of EventBridge rules and EventBridge Scheduler: rate(), cron(), at().

Each answers `next_after(t)`: the first time strictly after t it is due, or None.
Supported: rate(N minute|minutes|hour|hours|day|days); cron with the six AWS fields
(minutes hours day-of-month month day-of-week year) using *, ?, numbers, names, ranges, lists
and steps (L, W and # are rejected); at(yyyy-mm-ddThh:mm:ss). Times are in the given IANA zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

_RATE = re.compile(r"rate\((\d+)\s+(minutes?|hours?|days?)\)")
_CRON = re.compile(r"cron\((.+)\)")
_AT = re.compile(r"at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)")
_UNIT_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}
_MONTH_NAMES = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, 1)}
_WEEKDAYS = {name: number for number, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"), 1)}
_LAST_YEAR = 2199


@dataclass(frozen=True)
class Rate:
    """Due every `seconds`, on multiples of the period since the Unix epoch.

    AWS counts from the rule's creation instead; locally only the spacing matters, and an
    anchored phase lets a test know when the next run is due.
    """

    seconds: int

    def next_after(self, after: datetime) -> datetime:
        periods = int(after.timestamp()) // self.seconds + 1
        return datetime.fromtimestamp(periods * self.seconds, UTC)


@dataclass(frozen=True)
class At:
    instant: datetime

    def next_after(self, after: datetime) -> datetime | None:
        return self.instant if self.instant > after else None


@dataclass(frozen=True)
class Cron:
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days_of_month: frozenset[int] | None  # None: "?", the other day field decides
    months: frozenset[int]
    days_of_week: frozenset[int] | None  # 1 = Sunday ... 7 = Saturday, as AWS numbers them
    years: frozenset[int]
    zone: ZoneInfo

    def next_after(self, after: datetime) -> datetime | None:
        local = after.astimezone(self.zone)
        day = local.date()
        first_minute = local.hour * 60 + local.minute + 1  # strictly after: from the next whole minute
        while day.year <= _LAST_YEAR:
            if day.year not in self.years:
                day, first_minute = date(day.year + 1, 1, 1), 0
                continue
            if day.month not in self.months:
                day, first_minute = (day.replace(day=28) + timedelta(days=4)).replace(day=1), 0
                continue
            if self._day_matches(day):
                for hour in self.hours:
                    for minute in self.minutes:
                        if hour * 60 + minute >= first_minute:
                            return datetime.combine(day, time(hour, minute), self.zone).astimezone(UTC)
            day, first_minute = day + timedelta(days=1), 0
        return None

    def _day_matches(self, day: date) -> bool:
        if self.days_of_month is not None:
            return day.day in self.days_of_month
        assert self.days_of_week is not None
        return day.isoweekday() % 7 + 1 in self.days_of_week  # ISO Monday=1 -> AWS Monday=2


Expression = Rate | Cron | At


def parse(expression: str, timezone: str = "UTC") -> Expression:
    zone = ZoneInfo(timezone)
    text = expression.strip()
    if match := _RATE.fullmatch(text):
        value, unit = int(match[1]), match[2].rstrip("s")
        if value < 1:
            raise ValueError(f"{expression}: the rate must be positive")
        return Rate(value * _UNIT_SECONDS[unit])
    if match := _AT.fullmatch(text):
        local = datetime.strptime(match[1], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=zone)
        return At(local.astimezone(UTC))
    if match := _CRON.fullmatch(text):
        return _cron(match[1], zone, expression)
    raise ValueError(f"{expression}: not a rate(), cron() or at() expression")


def _cron(fields_text: str, zone: ZoneInfo, expression: str) -> Cron:
    fields = fields_text.split()
    if len(fields) != 6:
        raise ValueError(f"{expression}: cron needs six fields (minutes hours day-of-month month day-of-week year)")
    minutes, hours, dom, month, dow, year = fields
    if (dom == "?") == (dow == "?"):
        raise ValueError(f"{expression}: exactly one of day-of-month and day-of-week must be '?'")
    return Cron(
        minutes=tuple(sorted(_field(minutes, 0, 59, {}, expression))),
        hours=tuple(sorted(_field(hours, 0, 23, {}, expression))),
        days_of_month=None if dom == "?" else _field(dom, 1, 31, {}, expression),
        months=_field(month, 1, 12, _MONTHS, expression),
        days_of_week=None if dow == "?" else _field(dow, 1, 7, _WEEKDAYS, expression),
        years=_field(year, 1970, _LAST_YEAR, {}, expression),
        zone=zone,
    )


def _field(text: str, low: int, high: int, names: dict[str, int], expression: str) -> frozenset[int]:
    def number(token: str) -> int:
        if token.upper() in names:
            return names[token.upper()]
        if not token.isdigit():
            raise ValueError(f"{expression}: {token!r} is not supported locally")
        return int(token)

    values: set[int] = set()
    for part in text.split(","):
        base, slash, step_text = part.partition("/")
        step = number(step_text) if slash else 1
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, last = base.split("-", 1)
            start, end = number(first), number(last)
        else:
            start = number(base)
            end = high if slash else start  # "5/15" means from 5 to the end, every 15
        if not low <= start <= end <= high or step < 1:
            raise ValueError(f"{expression}: {part!r} is out of range {low}-{high}")
        values.update(range(start, end + 1, step))
    return frozenset(values)
