"""Exact event counts from roll-ups: what GET /v3/events' total_count can take from counters
instead of counting stored events one by one.

Pure: no I/O, no clock. The metrics roll-up consumer (metrics/service.py) adds every new event of
the events stream to one counter item of its UTC day, per series (`*`: every event, `tag#<tag>`:
the events carrying that tag, one per distinct tag as the tag items are):

    hour item  `h<hh>_<type>`   events of that type in that UTC hour
               `e<hh>_<k>`      events of that hour whose TTL falls k whole hours after its start

A day's totals are the sum of its hours (`day_values`): `t_<type>` is the sum of `h<hh>_<type>`,
and the day's TTL class of an event (`x<k>`: its TTL falls k whole days after the day's start) is
(hh + k_hour) // 24 of its hour's class. Until 2026-11-28 the consumer also wrote a day item
(`D#<day>`: `t_<type>`, `x<k>`) beside the hour item, in the same batch with the same marks; those
still stored add their `x<k>` classes to the day's (hour items written before 2026-11-24 carry no
`e` classes), which only ever makes a day's smallest class smaller (safe), never a total.

Every stored event counts, test and live alike, bots' opens and duplicates included: exactly what
the events query counts (events/store.py), so a sum of counters equals a count of the items.

The counters answer the part of a window that is `covered` (see `covered_span`):
- whole UTC hours only, ending at least SETTLE ago (the consumer's lag budget: the stream hands a
  record to the consumer within seconds; SETTLE leaves room for batching windows, a retried batch
  and the writers' own time between stamping an event and storing it);
- from the account's first complete day: the day after the first event the consumer counted (an
  account with history from before the roll-ups has uncounted events up to then), or earlier
  where the backfill rebuilt the days from stored events (`complete_from`);
- after the last retention cut applied to the account (the daily pass records it before it
  deletes anything: the counters of a day it empties still hold what it deleted);
- only days none of whose events can have expired by TTL yet (a TTL set under a shorter window,
  before an upgrade, deletes events the counters still hold): the `x<k>` classes tell; on the
  window's first, partial day (whose oldest events a plan's TTL reaches first) the hours'
  `e<hh>_<k>` classes tell, so the hours after `since` stay answered.
Everything else in the window (the open edges) is counted by the events query as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from postline.events.domain import Event
from postline.events.query import EventFilters, QueryPlan, Strategy, Window

SETTLE = timedelta(minutes=15)
ALL_SERIES = "*"
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
_TYPE_PREFIX = "t_"
_TTL_PREFIX = "x"
_HOUR_TTL_PREFIX = "e"
KEEP_DAYS = 400  # counter items outlive every window (at most 366 days) and every plan's retention


def tag_series(tag: str) -> str:
    return f"tag#{tag}"


def day_start(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


@dataclass(frozen=True)
class CountKey:
    """One counter item: an account's series on one UTC day, the day's totals or its hours."""

    account_id: str
    series: str
    day: str  # yyyy-mm-dd
    hours: bool  # True: the hour item (`hNN_`); False: a day item (`t_`, `x`), no longer written


def count_additions(event: Event) -> dict[CountKey, dict[str, int]]:
    """What one stored event adds to the counters: its hour item, for every series."""
    moment = event.timestamp.astimezone(UTC)
    day = moment.date()
    hour_start = int(day_start(day).timestamp()) + moment.hour * 3600
    hour_class = (event.expires_at - hour_start) // 3600
    kind = event.type.value
    out: dict[CountKey, dict[str, int]] = {}
    for series in (ALL_SERIES, *(tag_series(tag) for tag in dict.fromkeys(event.tags))):
        out[CountKey(event.account_id, series, f"{day}", True)] = {
            f"h{moment.hour:02d}_{kind}": 1,
            f"{_HOUR_TTL_PREFIX}{moment.hour:02d}_{hour_class}": 1,
        }
    return out


def merge_additions(into: dict[CountKey, dict[str, int]], adds: dict[CountKey, dict[str, int]]) -> None:
    for item_key, values in adds.items():
        target = into.setdefault(item_key, {})
        for name, value in values.items():
            target[name] = target.get(name, 0) + value


# -- reading -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    """What the account's coverage item says (any part may be missing)."""

    first_counted: datetime | None = None  # the earliest event of the first batch the consumer counted
    complete_from: date | None = None  # the backfill rebuilt every day from this one on
    cut: datetime | None = None  # the latest retention cut applied: everything before it was deleted

    @property
    def first_complete_day(self) -> date | None:
        days = []
        if self.first_counted is not None:
            days.append(self.first_counted.astimezone(UTC).date() + DAY)
        if self.complete_from is not None:
            days.append(self.complete_from)
        return min(days) if days else None


@dataclass(frozen=True)
class CountQuestion:
    """Which series and which types (None: every type) a plan's count reads from the counters."""

    series: str
    event_type: str | None


def count_question(plan: QueryPlan) -> CountQuestion | None:
    """The counters that answer a plan's count, or None when its filters are not counted (a
    recipient, message, metadata, IP pool or IP filter; a message or recipient plan)."""
    residual: EventFilters = plan.residual
    if residual.recipient is not None or residual.message_id is not None or residual.metadata:
        return None
    if residual.ip_pool is not None or residual.ip is not None:
        return None
    if plan.strategy is Strategy.DAY:  # every type, or one the by_type index does not hold
        return CountQuestion(ALL_SERIES, residual.event)
    if plan.strategy is Strategy.TYPE and residual.tag is None:
        return CountQuestion(ALL_SERIES, str(plan.key))
    if plan.strategy is Strategy.TAG:
        return CountQuestion(tag_series(str(plan.key)), residual.event)
    return None


def floor_hour(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def ceil_hour(moment: datetime) -> datetime:
    floored = floor_hour(moment)
    return floored if floored == moment.astimezone(UTC) else floored + HOUR


def candidate_span(window: Window, now: datetime) -> tuple[datetime, datetime] | None:
    """The largest part of the window the counters could answer, before reading them: whole
    settled hours. None when there is none."""
    low = ceil_hour(window.since)
    high = floor_hour(min(window.until, now - SETTLE))
    return (low, high) if low < high else None


def covered_span(
    low: datetime,
    high: datetime,
    coverage: Coverage,
    ttl_classes: dict[date, int],
    now: datetime,
    hour_classes: dict[date, dict[int, int]] | None = None,
) -> tuple[datetime, datetime] | None:
    """The part [low, high) of a candidate span the counters answer exactly (see the module's
    list), or None. `ttl_classes`: each day's smallest `x<k>` (days without events have none);
    `hour_classes`: of the days whose hour items were read, each hour's smallest `e<hh>_<k>`."""
    first = coverage.first_complete_day
    if first is None:
        return None
    low = max(low, day_start(first))
    if coverage.cut is not None and coverage.cut > low:
        low = max(low, day_start(coverage.cut.astimezone(UTC).date() + DAY))
    for day, smallest in sorted(ttl_classes.items()):
        # an event of `day` expires at or after day start + smallest days: safe until then
        if day_start(day) < high and now >= day_start(day) + timedelta(days=smallest):
            hours = (hour_classes or {}).get(day)
            if hours is not None and low.date() == day and low != day_start(day):  # a partial first day
                starts = [day_start(day) + timedelta(hours=hour) for hour in hours]
                unsafe = [
                    start
                    for start, hours_left in zip(starts, hours.values(), strict=True)
                    if start >= low and now >= start + timedelta(hours=hours_left)
                ]
                low = max([low, *(start + HOUR for start in unsafe)])
            else:
                low = max(low, day_start(day + DAY))
    return (low, high) if low < high else None


@dataclass
class CountItems:
    """The counter items read for a span: day items by day, hour items by day (only non-zero)."""

    days: dict[date, dict[str, int]] = field(default_factory=dict)
    hours: dict[date, dict[str, int]] = field(default_factory=dict)


def day_values(hours: dict[str, int] | None, legacy: dict[str, int] | None = None) -> dict[str, int]:
    """A day's totals (`t_<type>`, `x<k>`) from its hour item, and the `x<k>` classes of its day
    item where one was written (before 2026-11-28): see the module's docstring. Names other than
    `h<hh>_<type>` and `e<hh>_<k>` are skipped. A year's hour items are a few tens of thousands of
    counters: one pass, no parsing beyond the names' fixed positions."""
    out: dict[str, int] = {}
    for name, value in (hours or {}).items():
        if not value:
            continue
        if name[0] == "h" and name[3:4] == "_":
            total = f"{_TYPE_PREFIX}{name[4:]}"
        elif name[0] == _HOUR_TTL_PREFIX and name[3:4] == "_":
            total = f"{_TTL_PREFIX}{(int(name[1:3]) + int(name[4:])) // 24}"
        else:
            continue
        out[total] = out.get(total, 0) + value
    for name, value in (legacy or {}).items():
        if name.startswith(_TTL_PREFIX) and value:
            out[name] = out.get(name, 0) + value
    return out


def smallest_ttl_classes(items: CountItems) -> dict[date, int]:
    out: dict[date, int] = {}
    for day, values in items.days.items():
        classes = [int(name[1:]) for name, value in values.items() if name.startswith(_TTL_PREFIX) and value]
        if classes:
            out[day] = min(classes)
    return out


def smallest_hour_classes(items: CountItems) -> dict[date, dict[int, int]]:
    out: dict[date, dict[int, int]] = {}
    for day, values in items.hours.items():
        hours: dict[int, int] = {}
        for name, value in values.items():
            if name.startswith(_HOUR_TTL_PREFIX) and value:
                hour, _, hours_left = name[1:].partition("_")
                hours[int(hour)] = min(hours.get(int(hour), int(hours_left)), int(hours_left))
        out[day] = hours
    return out


def _types(values: dict[str, int], prefix: str, event_type: str | None) -> int:
    if event_type is not None:
        return values.get(f"{prefix}{event_type}", 0)
    return sum(value for name, value in values.items() if name.startswith(prefix))


@dataclass(frozen=True)
class KnownCount:
    """The covered part of a window, [since, until), and what the counters say of it: the number
    of matching events, and the UTC days among it holding any."""

    since: datetime
    until: datetime
    total: int
    days: frozenset[date]


def known_count(question: CountQuestion, span: tuple[datetime, datetime], items: CountItems) -> KnownCount:
    """Sums the counters of [since, until): whole days from day items, partial days from hours."""
    since, until = span
    total, days = 0, set()
    day = since.date()
    while day_start(day) < until:
        start, end = day_start(day), day_start(day + DAY)
        if since <= start and end <= until:
            found = _types(items.days.get(day, {}), _TYPE_PREFIX, question.event_type)
        else:
            first = max(since, start).hour
            last = 24 if end <= until else until.hour
            hours = items.hours.get(day, {})
            found = sum(_types(hours, f"h{hour:02d}_", question.event_type) for hour in range(first, last))
        if found:
            total += found
            days.add(day)
        day += DAY
    return KnownCount(since, until, total, frozenset(days))


def partial_days(span: tuple[datetime, datetime]) -> list[date]:
    """The span's days that only some hours of belong to: their hour items are read."""
    since, until = span
    out = []
    if since != day_start(since.date()):
        out.append(since.date())
    if until != day_start(until.date()) and until.date() not in out:
        out.append(until.date())
    return out
