"""Metrics: the roll-up consumer of the events stream, and the summary / timeseries / breakdown reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from postline.accounts.domain import Account
from postline.events.autoshard import AutoSharder
from postline.events.counts import CountKey, count_additions, merge_additions
from postline.events.domain import Event, EventType
from postline.keys.identity import Principal
from postline.metrics.domain import (
    ALL,
    BOUNCE_CODE_LABELS,
    CLOSED_AFTER,
    MAX_WINDOW_DAYS,
    PROVIDER_LABELS,
    SKETCHED,
    SOURCE_EVENTS,
    Counter,
    Dimension,
    Latency,
    Quarter,
    Resolution,
    Tally,
    bucket_start,
    bucket_starts,
    ceil_quarter,
    contribution,
    counter_attribute,
    derived_dimension,
    floor_quarter,
    last_closed_day,
    mode_of,
    parse_attribute,
    pct_change,
    rate,
    rate_pp,
    series_key,
    utc_days,
)
from postline.metrics.models import (
    BounceBreakdown,
    BreakdownRow,
    Comparison,
    DeliveryMetrics,
    Delta,
    EngagementMetrics,
    LatencyBreakdown,
    MetricsBreakdown,
    MetricsDataPoint,
    MetricsGroup,
    MetricsSummary,
    MetricsTimeseries,
    Percentiles,
    Period,
    TrendPoint,
)
from postline.metrics.origins import client_of, country_of
from postline.metrics.ports import (
    AfterBatch,
    Chunk,
    DayEvents,
    ItemKey,
    Pair,
    PositionedEvents,
    RollupItem,
    Rollups,
    Workspaces,
)
from postline.metrics.sketches import bin_of, percentiles
from postline.shared import stream_watermarks
from postline.shared.errors import Forbidden, QueryTimeout, ValidationFailed
from postline.shared.ports import Clock
from postline.subaccounts.domain import ORGANISATION_ONLY
from postline.subaccounts.organisation import MAX_WORKSPACES

MAX_ACTIONS = 100  # items written per run of writes (a chunk)
MAX_ATTRIBUTES = 80  # additions in one item's update (the expression stays far below 4 KB)
QUERY_RETRY_AFTER_SECONDS = 5
DEFAULT_WINDOW = timedelta(days=30)
BACKFILL_AFTER = CLOSED_AFTER  # a day closed this long has no record left in the stream


def stream_lag(records: list[dict[str, Any]], now: datetime) -> float | None:
    """Seconds between the batch's oldest record entering the stream (ApproximateCreationDateTime,
    epoch seconds) and now: the consumer's IteratorAge, as Lambda reports it. None without one. (In
    the embedded runtime, whose clock may run ahead of moto's, it can read high: packing then only
    waits.)"""
    created = [
        stream_watermarks.stream_epoch(stamp)
        for record in records
        if (stamp := record.get("dynamodb", {}).get("ApproximateCreationDateTime")) is not None
    ]
    return max(0.0, now.timestamp() - min(created)) if created else None


class RollupService:
    """Adds each new event of a stream batch to its account's roll-ups, exactly once (store.py)."""

    def __init__(
        self,
        *,
        stream: PositionedEvents,
        rollups: Rollups,
        clock: Clock,
        reputation: AfterBatch | None = None,
        shards: AutoSharder | None = None,
    ) -> None:
        self._stream = stream
        self._rollups = rollups
        self._clock = clock
        self._reputation = reputation  # evaluates the accounts the batch moved (reputation_service.py)
        self._shards = shards  # raises the event shards of accounts the batch shows hot (events/autoshard.py)

    def consume(self, records: list[dict[str, Any]]) -> int:
        """Counts a batch; returns how many events it counted now (0 for a replay). Raises when a
        write fails, and the whole batch comes again: what was written is skipped then (each item
        keeps the last record of each events partition it added: shared/stream_marks.py)."""
        lag = stream_lag(records, self._clock.now())
        if lag is not None:  # noted first: a batch that then fails and comes again is behind too
            self._rollups.note_lag(self._clock.now(), lag)
        positioned = [
            (partition, stream_watermarks.padded(seq), event)
            for partition, seq, event in self._stream.positioned_events(records)
        ]
        if not positioned:
            return 0
        # The partitions' watermark items of the transactional consumer this one replaced: what they
        # say was counted was (they expire three days after their last write).
        marks = self._rollups.watermarks([p for p, _, _ in positioned])
        fresh = self._unpacked([(p, seq, event) for p, seq, event in positioned if seq > (marks.get(p) or "")])
        plans = [(p, seq, event, contribution(event, **_origin(event))) for p, seq, event in fresh]
        owners = self._claim_uniques(plans)
        chunk, added = Chunk(), set[tuple[str, str]]()
        moved: dict[tuple[str, str], None] = {}  # (account, mode) whose sends, bounces or complaints it counts
        for partition, seq, event, plan in plans:
            adds: dict[ItemKey, dict[str, int]] = {}
            if plan is not None:
                counters = dict(plan.counters)
                if plan.unique is not None and owners.get(_pair(event, plan.unique)) == event.id:
                    counters[Counter.UNIQUE_OPENS if plan.unique == "open" else Counter.UNIQUE_CLICKS] = 1
                adds = _additions(event, counters, plan.latencies, plan.series)
            counts = count_additions(event)  # every stored event, counted or not by the metrics
            if not _fits(chunk, adds, counts, event.account_id):
                added |= self._rollups.apply(chunk)
                chunk = Chunk()
            merge_additions(chunk.counts, counts)
            for count_key, values in counts.items():
                chunk.entries.setdefault(count_key, []).append((partition, seq, values))
            first = chunk.firsts.get(event.account_id)
            chunk.firsts[event.account_id] = event.timestamp if first is None else min(first, event.timestamp)
            for item_key, values in adds.items():
                target = chunk.adds.setdefault(item_key, {})
                for name, value in values.items():
                    target[name] = target.get(name, 0) + value
                chunk.entries.setdefault(item_key, []).append((partition, seq, values))
                chunk.expires[item_key] = max(chunk.expires.get(item_key, 0), event.expires_at)
            if plan is not None and event.type in SOURCE_EVENTS:
                moved[(event.account_id, mode_of(event))] = None
        if chunk.entries or chunk.firsts:
            added |= self._rollups.apply(chunk)
        if self._reputation is not None and moved:
            self._reputation.after_batch(list(moved))
        if self._shards is not None:  # after the counts: a raise that fails re-runs a batch they skip
            self._shards.after_batch(records)
        return sum(1 for partition, seq, _, plan in plans if plan is not None and (partition, seq) in added)

    def _unpacked(self, positioned: list[tuple[str, str, Event]]) -> list[tuple[str, str, Event]]:
        """Without the records of days packing has closed. Packing waits until no stream record can
        still add to a day (packing.py), so such a record is a replay, and the marks that would refuse
        it went with the day's hour items. Only a day closed by now can be packed: a batch of recent
        records reads nothing."""
        closed = last_closed_day(self._clock.now())
        old = {event.account_id for _, _, event in positioned if _utc_day(event) <= closed}
        if not old:
            return positioned
        packed = {account_id: self._rollups.packed_through(account_id) for account_id in old}
        return [
            (partition, seq, event)
            for partition, seq, event in positioned
            if (through := packed.get(event.account_id)) is None or _utc_day(event) > through
        ]

    def _claim_uniques(self, plans: list[tuple[str, str, Event, Any]]) -> dict[Pair, str]:
        """Each first open or click pair of the batch, by the event that holds it: the one that
        held it already, or the batch's first of it, which claims it now (before any counter
        moves, so a crash after the claim counts it on the redelivery, once: the counters' marks)."""
        candidates: dict[Pair, tuple[str, int]] = {}
        for _, _, event, plan in plans:
            if plan is not None and plan.unique is not None:
                candidates.setdefault(_pair(event, plan.unique), (event.id, event.expires_at))
        if not candidates:
            return {}
        owners = dict(self._rollups.pair_events(list(candidates)))
        unclaimed = {pair: owned for pair, owned in candidates.items() if pair not in owners}
        if unclaimed:
            owners.update(self._rollups.claim_pairs(unclaimed))
        return owners

    def rebuild_day(self, account_id: str, day: date, events: DayEvents) -> int:
        """Backfill: the day's roll-ups recomputed from its stored events and written whole, for
        stacks deployed before the roll-ups. Idempotent (a rerun writes the same items). Only a
        day closed for longer than the stream keeps records (24 h) is rebuilt, so no record of it
        can still reach the consumer and count again. The events query's counters of the day are
        recounted too (every stored event). Returns the events counted."""
        if datetime.combine(day + timedelta(days=1), time(0), tzinfo=UTC) > self._clock.now() - BACKFILL_AFTER:
            raise ValidationFailed(f"{day} is not closed for {BACKFILL_AFTER} yet: the stream still counts it")
        stored = sorted(events.day_events(account_id, f"{day}"), key=lambda e: (e.timestamp, e.id))
        plans = [(event, contribution(event, **_origin(event))) for event in stored]
        event_counts: dict[CountKey, dict[str, int]] = {}
        for event in stored:
            merge_additions(event_counts, count_additions(event))
        wanted = [_pair(event, plan.unique) for event, plan in plans if plan is not None and plan.unique]
        owners = self._rollups.pair_events(wanted) if wanted else {}
        items: dict[ItemKey, dict[str, int]] = {}
        expires: dict[ItemKey, int] = {}
        claimed: dict[Pair, tuple[str, int]] = {}
        counted = 0
        for event, plan in plans:
            if plan is None:
                continue
            counters = dict(plan.counters)
            if plan.unique is not None:
                pair = _pair(event, plan.unique)
                owner = owners.get(pair)
                if pair not in claimed and owner in (None, "", event.id):  # first, or the one counted before
                    claimed[pair] = (event.id, event.expires_at)
                    counters[Counter.UNIQUE_OPENS if plan.unique == "open" else Counter.UNIQUE_CLICKS] = 1
            for item_key, values in _additions(event, counters, plan.latencies, plan.series).items():
                target = items.setdefault(item_key, {})
                for name, value in values.items():
                    target[name] = target.get(name, 0) + value
                expires[item_key] = max(expires.get(item_key, 0), event.expires_at)
            counted += 1
        if claimed:
            self._rollups.put_pairs({pair: owned for pair, owned in claimed.items() if owners.get(pair) is None})
        self._rollups.replace_day(account_id, f"{day}", items, expires)
        self._rollups.replace_counts(account_id, f"{day}", event_counts)
        return counted

    def mark_complete(self, account_id: str, since: date, until: date) -> bool:
        """After a backfill of [since, until]: when the consumer has counted every day after
        `until` (its first counted event lies on or before `until`), every day from `since` on
        is counted, and the events query may answer from the counters there. Returns whether so."""
        first = self._rollups.first_counted(account_id)
        if first is None or first.astimezone(UTC).date() > until:
            return False
        self._rollups.extend_complete_from(account_id, since)
        return True


def _same(value: str) -> str:
    return value


def _origin(event: Event) -> dict[str, str | None]:
    """Country and client of an open or click (the others have none)."""
    if event.type not in (EventType.OPENED, EventType.CLICKED):
        return {}
    return {"country": country_of(event.data.get("ip")), "client": client_of(event.data.get("user_agent"))}


def _pair(event: Event, kind: str) -> Pair:
    return event.account_id, event.message_id, kind, (event.recipient or "").lower()


def _additions(
    event: Event, counters: dict[Counter, int], latencies: dict[Latency, float], series: tuple[str, ...]
) -> dict[ItemKey, dict[str, int]]:
    quarter = Quarter.of(event.timestamp)
    mode = mode_of(event)
    counted = {counter_attribute(quarter.quarter, counter): value for counter, value in counters.items()}
    sketched = {f"q{quarter.quarter}_{kind.value}_{bin_of(ms)}": 1 for kind, ms in latencies.items()}
    out: dict[ItemKey, dict[str, int]] = {}
    for name in series:
        item_key = ItemKey(event.account_id, mode, quarter.day, name, quarter.hour)
        dimension = name.split("#", 1)[0]
        out[item_key] = {**counted, **sketched} if dimension in SKETCHED else dict(counted)
    return out


def _fits(
    chunk: Chunk, adds: dict[ItemKey, dict[str, int]], counts: dict[CountKey, dict[str, int]], account_id: str
) -> bool:
    new_items = sum(1 for item_key in adds if item_key not in chunk.adds)
    new_items += sum(1 for item_key in counts if item_key not in chunk.counts) + (account_id not in chunk.firsts)
    if chunk.actions + new_items > MAX_ACTIONS:
        return False
    return all(
        len(chunk.adds.get(item_key, {}).keys() | values.keys()) <= MAX_ATTRIBUTES for item_key, values in adds.items()
    ) and all(
        len(chunk.counts.get(item_key, {}).keys() | values.keys()) <= MAX_ATTRIBUTES
        for item_key, values in counts.items()
    )


# -- reading ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    since: datetime  # UTC, on a quarter hour
    until: datetime  # UTC, on a quarter hour, exclusive
    zone: ZoneInfo
    timezone: str

    @property
    def period(self) -> Period:
        return Period(since=self.since.astimezone(self.zone), until=self.until.astimezone(self.zone))

    def previous(self) -> Window:
        length = self.until - self.since
        return Window(self.since - length, self.since, self.zone, self.timezone)

    def holds(self, moment: datetime) -> bool:
        return self.since <= moment < self.until


def zone_of(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValidationFailed(f"timezone: {name!r} is not an IANA time zone") from error


def window_of(since: datetime | None, until: datetime | None, timezone: str, now: datetime) -> Window:
    """The window asked for, widened to whole UTC quarter hours (what roll-ups can answer); at most
    366 days; since defaults to 30 days before until, until to now."""
    zone = zone_of(timezone)
    end = _aware(until, zone) if until is not None else now
    _within_range("until", end)
    start = _aware(since, zone) if since is not None else end - DEFAULT_WINDOW
    _within_range("since", start)
    if start >= end:
        raise ValidationFailed("since must be before until")
    if end - start > timedelta(days=MAX_WINDOW_DAYS):
        raise ValidationFailed(f"since and until are at most {MAX_WINDOW_DAYS} days apart")
    return Window(floor_quarter(start), ceil_quarter(end), zone, timezone)


# Long before any roll-up and far from datetime's own limits, so that no window arithmetic (the
# default 30 days, the previous period, zone offsets) can overflow.
_EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
_LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def _within_range(name: str, moment: datetime) -> None:
    try:
        inside = _EARLIEST <= moment <= _LATEST
    except OverflowError:  # a zone's offset pushed it past datetime's range
        inside = False
    if not inside:
        raise ValidationFailed(f"{name}: must fall between {_EARLIEST:%Y-%m-%d} and {_LATEST:%Y-%m-%d}")


def _aware(moment: datetime, zone: ZoneInfo) -> datetime:
    """A time without an offset is read in the requested zone."""
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def quarter_tallies(items: list[RollupItem]) -> dict[tuple[str, datetime], Tally]:
    """(series, quarter start) -> its counters and latency bins."""
    out: dict[tuple[str, datetime], Tally] = {}
    for item in items:
        hour_start = datetime.combine(date.fromisoformat(item.day), time(item.hour), tzinfo=UTC)
        for name, value in item.values.items():
            parsed = parse_attribute(name)
            if parsed is None:
                continue
            quarter, what, bin_name = parsed
            tally = out.setdefault((item.series, hour_start + timedelta(minutes=15 * quarter)), Tally())
            if bin_name is None:
                tally.add_counter(what, value)
            else:
                tally.add_bin(what, bin_name, value)
    return out


def delivery_of(t: Tally) -> DeliveryMetrics:
    sent = t.get(Counter.SENT)
    bounces = {c: t.get(c) for c in (Counter.BOUNCE_HARD, Counter.BOUNCE_SOFT, Counter.BOUNCE_SUPPRESSED)}
    return DeliveryMetrics(
        sent=sent,
        delivered=t.get(Counter.DELIVERED),
        bounced=t.get(Counter.BOUNCED),
        bounces=BounceBreakdown(
            hard=bounces[Counter.BOUNCE_HARD],
            soft=bounces[Counter.BOUNCE_SOFT],
            suppressed=bounces[Counter.BOUNCE_SUPPRESSED],
            undetermined=t.get(Counter.BOUNCE_UNDETERMINED),
            hard_rate=rate(bounces[Counter.BOUNCE_HARD], sent),
            soft_rate=rate(bounces[Counter.BOUNCE_SOFT], sent),
            suppressed_rate=rate(bounces[Counter.BOUNCE_SUPPRESSED], sent),
            undetermined_rate=rate(t.get(Counter.BOUNCE_UNDETERMINED), sent),
        ),
        complained=t.get(Counter.COMPLAINED),
        delayed=t.get(Counter.DELAYED),
        rejected=t.get(Counter.REJECTED),
        failed=t.get(Counter.FAILED),
        delivery_rate=rate(t.get(Counter.DELIVERED), sent),
        bounce_rate=rate(t.get(Counter.BOUNCED), sent),
        complaint_rate=rate(t.get(Counter.COMPLAINED), sent),
    )


def engagement_of(t: Tally) -> EngagementMetrics:
    delivered = t.get(Counter.DELIVERED)
    return EngagementMetrics(
        opens=t.get(Counter.OPENED),
        opens_direct=t.get(Counter.OPENED_DIRECT),
        unique_opens=t.get(Counter.UNIQUE_OPENS),
        clicks=t.get(Counter.CLICKED),
        unique_clicks=t.get(Counter.UNIQUE_CLICKS),
        unsubscribes=t.get(Counter.UNSUBSCRIBED),
        open_rate=rate(t.get(Counter.UNIQUE_OPENS), delivered),
        click_rate=rate(t.get(Counter.UNIQUE_CLICKS), delivered),
        unsubscribe_rate=rate(t.get(Counter.UNSUBSCRIBED), delivered),
    )


def latency_of(t: Tally) -> LatencyBreakdown:
    def of(kind: Latency) -> Percentiles:
        p50, p95, p99 = percentiles(t.bins.get(kind.value, {}))
        return Percentiles(p50_ms=p50, p95_ms=p95, p99_ms=p99)

    return LatencyBreakdown(processing=of(Latency.PROCESSING), delivery=of(Latency.DELIVERY), total=of(Latency.TOTAL))


def delta_of(current: Tally, previous: Tally) -> Delta:
    now_d, then_d = delivery_of(current), delivery_of(previous)
    now_e, then_e = engagement_of(current), engagement_of(previous)
    return Delta(
        sent_pct_change=pct_change(now_d.sent, then_d.sent),
        delivered_pct_change=pct_change(now_d.delivered, then_d.delivered),
        bounced_pct_change=pct_change(now_d.bounced, then_d.bounced),
        complained_pct_change=pct_change(now_d.complained, then_d.complained),
        opens_pct_change=pct_change(now_e.opens, then_e.opens),
        clicks_pct_change=pct_change(now_e.clicks, then_e.clicks),
        delivery_rate_pp=rate_pp(now_d.delivery_rate, then_d.delivery_rate),
        bounce_rate_pp=rate_pp(now_d.bounce_rate, then_d.bounce_rate),
        complaint_rate_pp=rate_pp(now_d.complaint_rate, then_d.complaint_rate),
        open_rate_pp=rate_pp(now_e.open_rate, then_e.open_rate),
        click_rate_pp=rate_pp(now_e.click_rate, then_e.click_rate),
        unsubscribe_rate_pp=rate_pp(now_e.unsubscribe_rate, then_e.unsubscribe_rate),
    )


def data_point(timestamp: datetime, t: Tally) -> MetricsDataPoint:
    return MetricsDataPoint(
        timestamp=timestamp,
        sent=t.get(Counter.SENT),
        delivered=t.get(Counter.DELIVERED),
        bounced=t.get(Counter.BOUNCED),
        complained=t.get(Counter.COMPLAINED),
        opened=t.get(Counter.OPENED),
        clicked=t.get(Counter.CLICKED),
        unsubscribed=t.get(Counter.UNSUBSCRIBED),
        delayed=t.get(Counter.DELAYED),
        rejected=t.get(Counter.REJECTED),
        failed=t.get(Counter.FAILED),
    )


STATUSES = (
    "sent",
    "delivered",
    "bounced",
    "complained",
    "opened",
    "clicked",
    "unsubscribed",
    "delayed",
    "rejected",
    "failed",
)
SORTS = {
    "sent": Counter.SENT,
    "delivered": Counter.DELIVERED,
    "bounced": Counter.BOUNCED,
    "complained": Counter.COMPLAINED,
    "opened": Counter.OPENED,
    "clicked": Counter.CLICKED,
    "unique_opens": Counter.UNIQUE_OPENS,
    "unique_clicks": Counter.UNIQUE_CLICKS,
    "failed": Counter.FAILED,
}


class MetricsService:
    def __init__(self, *, rollups: Rollups, clock: Clock, budget_ms: int, workspaces: Workspaces | None = None) -> None:
        """workspaces: an organisation's subaccounts, for the breakdown by subaccount (None: none)."""
        self._rollups = rollups
        self._clock = clock
        self._budget_seconds = budget_ms / 1000
        self._workspaces = workspaces

    def summary(
        self,
        principal: Principal,
        *,
        since: datetime | None,
        until: datetime | None,
        timezone: str,
        tag: str | None,
        domain: str | None,
        compare: bool,
    ) -> MetricsSummary:
        now = self._clock.now()
        window = window_of(since, until, timezone, now)
        series = _filter_series(tag, domain)
        previous = window.previous() if compare else None
        span = Window(previous.since if previous else window.since, window.until, window.zone, timezone)
        tallies = self._read(principal, span, series=series)
        current, before = Tally(), Tally()
        for (_, start), tally in tallies.items():
            if window.holds(start):
                current.merge(tally)
            elif previous is not None and previous.holds(start):
                before.merge(tally)
        comparison = None
        if previous is not None:
            comparison = Comparison(
                period=previous.period,
                delivery=delivery_of(before),
                engagement=engagement_of(before),
                latency=latency_of(before),
                delta=delta_of(current, before),
            )
        return MetricsSummary(
            data_as_of=now,
            period=window.period,
            timezone=timezone,
            delivery=delivery_of(current),
            engagement=engagement_of(current),
            latency=latency_of(current),
            comparison=comparison,
        )

    def timeseries(
        self,
        principal: Principal,
        *,
        since: datetime | None,
        until: datetime | None,
        timezone: str,
        resolution: Resolution,
        group_by: str | None,
        tag: str | None,
        domain: str | None,
    ) -> MetricsTimeseries:
        now = self._clock.now()
        window = window_of(since, until, timezone, now)
        series = _filter_series(tag, domain)
        if group_by == "domain" and tag is not None:
            raise ValidationFailed("group_by=domain cannot be combined with tag")
        starts = bucket_starts(window.since, window.until, window.zone, resolution)
        if group_by == "subaccount":
            totals, _ = self._by_subaccount(principal, window, series=series)
        else:
            totals = self._read(principal, window, series=series)
        buckets = _by_bucket(totals, window, resolution)
        data = [data_point(start.astimezone(window.zone), buckets.get(start, Tally())) for start in starts]
        groups: list[MetricsGroup] | None = None
        if group_by == "domain":
            dimension = Dimension.SENDING_DOMAIN.value
            by_domain: dict[str, dict[datetime, Tally]] = {}
            for (name, start), tally in self._read(principal, window, dimension=dimension).items():
                if domain is not None and name != series:
                    continue
                if window.holds(start):
                    bucket = bucket_start(start, window.zone, resolution)
                    by_domain.setdefault(name.split("#", 1)[1], {}).setdefault(bucket, Tally()).merge(tally)
            groups = [
                MetricsGroup(
                    key=key,
                    data=[data_point(s.astimezone(window.zone), t) for s, t in sorted(found.items()) if not t.idle],
                )
                for key, found in sorted(by_domain.items())
            ]
        elif group_by == "subaccount":
            by_sub: dict[str, dict[datetime, Tally]] = {}
            for (name, start), tally in totals.items():
                if window.holds(start):
                    bucket = bucket_start(start, window.zone, resolution)
                    by_sub.setdefault(name.split("#", 1)[1], {}).setdefault(bucket, Tally()).merge(tally)
            groups = [
                MetricsGroup(
                    key=key,
                    data=[data_point(s.astimezone(window.zone), t) for s, t in sorted(found.items()) if not t.idle],
                )
                for key, found in sorted(by_sub.items())
            ]
        elif group_by == "status":
            groups = []
            for status in STATUSES:
                points = [point for point in data if getattr(point, status)]
                if points:
                    groups.append(
                        MetricsGroup(
                            key=status,
                            data=[data_point(p.timestamp, _only(status, getattr(p, status))) for p in points],
                        )
                    )
        return MetricsTimeseries(
            data=data,
            resolution=resolution.value,
            data_as_of=now,
            timezone=timezone,
            period=window.period,
            group_by=group_by,
            groups=groups,
        )

    def breakdown(
        self,
        principal: Principal,
        *,
        dimension: Dimension,
        since: datetime | None,
        until: datetime | None,
        timezone: str,
        sort: str,
        limit: int,
        include_trend: bool,
    ) -> MetricsBreakdown:
        now = self._clock.now()
        window = window_of(since, until, timezone, now)
        labels: dict[str, str] = {}
        value_of: Callable[[str], str] = _same
        if dimension is Dimension.SUBACCOUNT:
            tallies, labels = self._by_subaccount(principal, window)
        else:
            read, value_of = derived_dimension(dimension) or (dimension, _same)
            tallies = self._read(principal, window, dimension=read.value)
        rows: dict[str, Tally] = {}
        daily: dict[str, dict[datetime, Tally]] = {}
        for (name, start), tally in tallies.items():
            if not window.holds(start):
                continue
            value = value_of(name.split("#", 1)[1])
            rows.setdefault(value, Tally()).merge(tally)
            if include_trend:
                day = bucket_start(start, window.zone, Resolution.DAY)
                daily.setdefault(value, {}).setdefault(day, Tally()).merge(tally)
        counter = SORTS[sort]
        ranked = sorted(rows.items(), key=lambda pair: (-pair[1].get(counter), pair[0]))
        days = bucket_starts(window.since, window.until, window.zone, Resolution.DAY) if include_trend else []
        data = []
        for value, tally in ranked[:limit]:
            trend = None
            if include_trend:
                found = daily.get(value, {})
                trend = [
                    TrendPoint(timestamp=day.astimezone(window.zone), value=found.get(day, Tally()).get(counter))
                    for day in days
                ]
            row = _row(dimension, value, tally, trend)
            data.append(row.model_copy(update={"label": labels[value]}) if value in labels else row)
        return MetricsBreakdown(
            data_as_of=now,
            dimension=dimension.value,
            period=window.period,
            timezone=timezone,
            sort=sort,
            total=len(rows),
            data=data,
        )

    def _by_subaccount(
        self, principal: Principal, window: Window, *, series: str = ALL
    ) -> tuple[dict[tuple[str, datetime], Tally], dict[str, str]]:
        """Each subaccount's `series` (its whole account's by default; in the caller's mode) as a series
        of its id, and the slug of each id; the reads share the query's time budget evenly."""
        if principal.account.parent_account_id is not None:
            raise Forbidden(
                "The breakdown by subaccount is its organisation's; this request acts in a subaccount.",
                code=ORGANISATION_ONLY,
            )
        subaccounts: list[Account] = []
        if self._workspaces is not None:
            subaccounts, _ = self._workspaces.list_subaccounts(principal.account.id, page=1, per_page=MAX_WORKSPACES)
        budget = self._budget_seconds / max(1, len(subaccounts))
        tallies: dict[tuple[str, datetime], Tally] = {}
        for sub in subaccounts:
            found = self._read(replace(principal, account=sub), window, series=series, budget_seconds=budget)
            for (_, start), tally in found.items():
                tallies.setdefault((series_key(Dimension.SUBACCOUNT, sub.id), start), Tally()).merge(tally)
        return tallies, {sub.id: sub.slug or sub.id for sub in subaccounts}

    def _read(
        self,
        principal: Principal,
        window: Window,
        *,
        series: str | None = None,
        dimension: str | None = None,
        budget_seconds: float | None = None,
    ) -> dict[tuple[str, datetime], Tally]:
        try:
            items = self._rollups.read(
                principal.account.id,
                principal.env.value,
                utc_days(window.since, window.until),
                series=series,
                dimension=dimension,
                budget_seconds=self._budget_seconds if budget_seconds is None else budget_seconds,
            )
        except TimeoutError as error:
            raise QueryTimeout(
                "The metrics query took longer than its time budget: narrow since/until, lower limit, "
                "or set include_trend=false.",
                retry_after=QUERY_RETRY_AFTER_SECONDS,
            ) from error
        return quarter_tallies(items)


def _filter_series(tag: str | None, domain: str | None) -> str:
    if tag is not None and domain is not None:
        raise ValidationFailed("filter on tag or on domain, not both")
    if tag is not None:
        return series_key(Dimension.TAG, tag)
    if domain is not None:
        return series_key(Dimension.SENDING_DOMAIN, domain.lower())
    return ALL


def _by_bucket(
    tallies: dict[tuple[str, datetime], Tally], window: Window, resolution: Resolution
) -> dict[datetime, Tally]:
    out: dict[datetime, Tally] = {}
    for (_, start), tally in tallies.items():
        if window.holds(start):
            out.setdefault(bucket_start(start, window.zone, resolution), Tally()).merge(tally)
    return out


def _only(status: str, value: int) -> Tally:
    return Tally(counts={Counter(status).value: value})  # every status is also a counter's name


_LABELS: dict[Dimension, Callable[[str], str | None]] = {
    Dimension.MAILBOX_PROVIDER: PROVIDER_LABELS.get,
    Dimension.BOUNCE_CODE: BOUNCE_CODE_LABELS.get,
}


def _row(dimension: Dimension, value: str, t: Tally, trend: list[TrendPoint] | None) -> BreakdownRow:
    labels = _LABELS.get(dimension)
    label = labels(value) if labels is not None else None
    delivered, sent = t.get(Counter.DELIVERED), t.get(Counter.SENT)
    return BreakdownRow(
        key=value,
        label=label,
        sent=sent,
        delivered=delivered,
        bounced=t.get(Counter.BOUNCED),
        complained=t.get(Counter.COMPLAINED),
        opened=t.get(Counter.OPENED),
        clicked=t.get(Counter.CLICKED),
        unique_opens=t.get(Counter.UNIQUE_OPENS),
        unique_clicks=t.get(Counter.UNIQUE_CLICKS),
        failed=t.get(Counter.FAILED),
        delivery_rate=rate(delivered, sent),
        bounce_rate=rate(t.get(Counter.BOUNCED), sent),
        complaint_rate=rate(t.get(Counter.COMPLAINED), sent),
        open_rate=rate(t.get(Counter.UNIQUE_OPENS), delivered),
        click_rate=rate(t.get(Counter.UNIQUE_CLICKS), delivered),
        trend=trend,
    )


def _utc_day(event: Event) -> date:
    return event.timestamp.astimezone(UTC).date()
