"""Metrics roll-ups: what each event adds to which counters, in 15-minute UTC buckets.

Pure: no I/O, no clock. The roll-up consumer (metrics/service.py) turns a stream batch into
`Increment`s with `contributions`; the store adds them up per (account, mode, UTC day, series,
UTC hour), one attribute per quarter-hour and counter (`q2_sent`: sent in minutes 30-44).

Why 15-minute buckets, kept as they are: every UTC offset in use today is a whole number of
quarter hours (+05:30 India, +05:45 Nepal, +08:45 Eucla, +12:45 Chatham) and every DST change
moves the clock by 30 or 60 minutes at a quarter-hour boundary, so every local hour, day, week
and month of every IANA zone starts on a UTC quarter hour. A quarter therefore lies inside exactly
one local bucket of any zone and any resolution, and a window's counts are exact sums of quarters.
Nothing coarser has that property: hours cannot answer +05:30, half-hours cannot answer +05:45.
So compaction never coarsens the time resolution; it packs the quarters: only non-zero counters
are stored (an idle quarter costs nothing), four quarters share an hour item, and a closed day's
24 hour items are packed into one item of its 96 quarters (`pack`, same exactness, one item read
instead of up to 24) once no stream record can still reach them; a reader sums packed and hour
items alike, so a day that is partly packed (a pass cut short) reads the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from postline.events.domain import Event, EventType
from postline.tracking.domain import is_bot

QUARTER = timedelta(minutes=15)
MAX_WINDOW_DAYS = 366
ALL = "all"  # the series of every event of the account and mode


class Counter(StrEnum):
    SENT = "sent"
    DELIVERED = "delivered"
    BOUNCED = "bounced"
    BOUNCE_HARD = "bounce_hard"
    BOUNCE_SOFT = "bounce_soft"
    BOUNCE_SUPPRESSED = "bounce_suppressed"
    BOUNCE_UNDETERMINED = "bounce_undetermined"
    COMPLAINED = "complained"
    DELAYED = "delayed"
    REJECTED = "rejected"
    FAILED = "failed"
    OPENED = "opened"
    OPENED_DIRECT = "opened_direct"
    UNIQUE_OPENS = "unique_opens"
    CLICKED = "clicked"
    UNIQUE_CLICKS = "unique_clicks"
    UNSUBSCRIBED = "unsubscribed"


class Latency(StrEnum):
    """Latency sketches (attribute letter): processing (accepted to handed over), delivery (handed
    over to the recipient's MX's acceptance), total (accepted to the MX's acceptance)."""

    PROCESSING = "p"
    DELIVERY = "d"
    TOTAL = "t"


_LATENCY_FIELDS = {Latency.PROCESSING: "processing_ms", Latency.DELIVERY: "delivery_ms", Latency.TOTAL: "total_ms"}


class Dimension(StrEnum):
    SENDING_DOMAIN = "sending_domain"
    RECIPIENT_DOMAIN = "recipient_domain"
    MAILBOX_PROVIDER = "mailbox_provider"
    TAG = "tag"
    TEMPLATE = "template"
    BOUNCE_CODE = "bounce_code"
    COMPLAINT_TYPE = "complaint_type"
    COUNTRY = "country"
    CLIENT = "client"
    # The IP pool a copy left through (its id), or `<warming pool id>:overflow` for a copy past that
    # pool's warm-up cap for the day; counted at the hand-over (sent, and delivered or bounced there).
    IP_POOL = "ip_pool"
    # An organisation's subaccounts: a row per subaccount, from each one's own roll-ups (never a series
    # of the organisation's own; metrics/service.py reads them at query time).
    SUBACCOUNT = "subaccount"


# The series of the copies sent from a pool's address, `sending_ip#<pool id>#<address>`, for
# reputation (metrics/reputation.py): not a breakdown dimension of the metrics routes. Only the
# events below count in it, and only their own counters. Named to sort right after
# `sending_domain#`, so one key range of a day partition holds both.
SOURCE = "sending_ip"
SOURCE_EVENTS = (EventType.SENT, EventType.BOUNCED, EventType.COMPLAINED)


OVERFLOW = "overflow"  # the ip_pool dimension's key suffix for a warming pool's overflow


def source_series(pool_id: str, ip: str) -> str:
    return f"{SOURCE}#{pool_id}#{ip}"


# Series that also keep latency sketches: those a summary can be filtered on.
SKETCHED = (ALL, Dimension.SENDING_DOMAIN.value, Dimension.TAG.value)

_BOUNCE_COUNTERS = {
    "hard": Counter.BOUNCE_HARD,
    "soft": Counter.BOUNCE_SOFT,
    "suppressed": Counter.BOUNCE_SUPPRESSED,
    "undetermined": Counter.BOUNCE_UNDETERMINED,
}
_SIMPLE = {
    EventType.SENT: Counter.SENT,
    EventType.DELIVERED: Counter.DELIVERED,
    EventType.COMPLAINED: Counter.COMPLAINED,
    EventType.DELAYED: Counter.DELAYED,
    EventType.REJECTED: Counter.REJECTED,
    EventType.FAILED: Counter.FAILED,
    EventType.UNSUBSCRIBED: Counter.UNSUBSCRIBED,
}

# Mailbox providers by the recipient's domain (the well-known consumer domains; the rest: "other").
_PROVIDERS = {
    "google": ("Google", ("gmail.com", "googlemail.com")),
    "microsoft": ("Microsoft", ("outlook.com", "hotmail.com", "live.com", "msn.com", "hotmail.co.uk", "outlook.fr")),
    "yahoo": ("Yahoo", ("yahoo.com", "ymail.com", "aol.com", "yahoo.co.uk", "yahoo.fr", "rocketmail.com")),
    "apple": ("Apple", ("icloud.com", "me.com", "mac.com")),
    "proton": ("Proton", ("proton.me", "protonmail.com", "pm.me")),
    "gmx": ("GMX / Web.de", ("gmx.de", "gmx.net", "gmx.com", "web.de")),
    "yandex": ("Yandex", ("yandex.ru", "yandex.com", "ya.ru")),
    "mailru": ("Mail.ru", ("mail.ru", "bk.ru", "inbox.ru", "list.ru")),
    "zoho": ("Zoho", ("zoho.com", "zohomail.com")),
}
_PROVIDER_OF = {domain: key for key, (_, domains) in _PROVIDERS.items() for domain in domains}
PROVIDER_LABELS = {key: label for key, (label, _) in _PROVIDERS.items()} | {"other": "Other"}
# RFC 3463 / IANA enhanced status code labels for the bounce_code breakdown (the common ones).
BOUNCE_CODE_LABELS = {
    "5.1.1": "Bad destination mailbox address",
    "5.1.2": "Bad destination system address",
    "5.1.10": "Recipient address has null MX",
    "5.2.1": "Mailbox disabled",
    "5.2.2": "Mailbox full",
    "5.3.4": "Message too big for system",
    "5.4.4": "Unable to route",
    "5.7.1": "Delivery not authorized, message refused",
    "5.7.26": "Multiple authentication checks failed",
    "4.2.2": "Mailbox full",
    "4.7.1": "Delivery not authorized (temporary)",
}
NO_CODE = "none"  # a bounce without an enhanced status code


def mailbox_provider(recipient_domain: str) -> str:
    return _PROVIDER_OF.get(recipient_domain.lower(), "other")


def derived_dimension(dimension: Dimension) -> tuple[Dimension, Callable[[str], str]] | None:
    """The dimension a breakdown reads for `dimension` when its series are not stored, and the
    value each stored value counts under: a mailbox provider's figures are its recipient domains'."""
    if dimension is Dimension.MAILBOX_PROVIDER:
        return Dimension.RECIPIENT_DOMAIN, mailbox_provider
    return None


def series_key(dimension: Dimension | str, value: str) -> str:
    return f"{dimension}#{value}"


def mode_of(event: Event) -> str:
    """test: simulated (a test key's, or routed), live otherwise; each has its own roll-ups."""
    return "test" if event.data.get("test") else "live"


@dataclass(frozen=True)
class Quarter:
    """A UTC quarter hour: the unit every roll-up is counted in."""

    day: str  # yyyy-mm-dd (UTC)
    hour: int
    quarter: int  # 0-3

    @classmethod
    def of(cls, moment: datetime) -> Quarter:
        moment = moment.astimezone(UTC)
        return cls(f"{moment:%Y-%m-%d}", moment.hour, moment.minute // 15)

    @property
    def start(self) -> datetime:
        return datetime.combine(date.fromisoformat(self.day), time(self.hour, self.quarter * 15), tzinfo=UTC)


def is_human_engagement(event: Event) -> bool:
    """Opens and clicks by bots and mail-privacy prefetchers are not counted: the tracking route's
    own rule (tracking/domain.py is_bot), applied again to what the event recorded of the request."""
    if event.type not in (EventType.OPENED, EventType.CLICKED):
        return True
    return not is_bot(event.data.get("user_agent"), event.data.get("purpose"))


@dataclass(frozen=True)
class Contribution:
    """What one event adds: counters, latencies, and the series (dimension values) it counts in."""

    counters: dict[Counter, int]
    latencies: dict[Latency, float]
    series: tuple[str, ...]
    unique: str | None = None  # "open"/"click": counts once per message+recipient (unique_opens/clicks)


def contribution(event: Event, *, country: str | None = None, client: str | None = None) -> Contribution | None:
    """None for events the metrics do not count (queued, duplicate, bots' opens and clicks).
    `country` and `client`: where an open or click came from (metrics/origins.py)."""
    counters: dict[Counter, int] = {}
    unique = None
    if event.type in _SIMPLE:
        counters[_SIMPLE[event.type]] = 1
    elif event.type is EventType.BOUNCED:
        counters[Counter.BOUNCED] = 1
        bounce_class = str(event.data.get("bounce_class") or "undetermined")
        counters[_BOUNCE_COUNTERS.get(bounce_class, Counter.BOUNCE_UNDETERMINED)] = 1
    elif event.type is EventType.OPENED and is_human_engagement(event):
        counters[Counter.OPENED] = 1
        if not event.data.get("via_proxy"):
            counters[Counter.OPENED_DIRECT] = 1
        unique = "open"
    elif event.type is EventType.CLICKED and is_human_engagement(event):
        counters[Counter.CLICKED] = 1
        unique = "click"
    if not counters:
        return None
    latencies: dict[Latency, float] = {}
    for kind, name in _LATENCY_FIELDS.items():
        value = event.data.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            latencies[kind] = float(value)
    return Contribution(counters, latencies, tuple(series_of(event, country=country, client=client)), unique)


def series_of(event: Event, *, country: str | None = None, client: str | None = None) -> Iterator[str]:
    yield ALL
    if event.sending_domain:
        yield series_key(Dimension.SENDING_DOMAIN, event.sending_domain.lower())
    if overflowed := event.data.get("ip_pool_overflow"):
        yield series_key(Dimension.IP_POOL, f"{overflowed}:{OVERFLOW}")
    elif event.data.get("ip_pool"):
        yield series_key(Dimension.IP_POOL, str(event.data["ip_pool"]))
    if event.type in SOURCE_EVENTS and event.data.get("ip_pool"):  # no ip: SES picked the address
        yield source_series(str(event.data["ip_pool"]), str(event.data.get("ip") or ""))
    if event.recipient and "@" in event.recipient:
        domain = event.recipient.rsplit("@", 1)[1].lower()
        # No mailbox_provider series: a provider's figures are the sum of its recipient domains'
        # (derived_dimension), read from theirs. Days counted before 2026-11-28 hold both.
        yield series_key(Dimension.RECIPIENT_DOMAIN, domain)
    for tag in dict.fromkeys(event.tags):
        yield series_key(Dimension.TAG, tag)
    if event.template_id:
        yield series_key(Dimension.TEMPLATE, event.template_id)
    if event.type is EventType.BOUNCED:
        yield series_key(Dimension.BOUNCE_CODE, str(event.data.get("bounce_code") or NO_CODE))
    if event.type is EventType.COMPLAINED:
        yield series_key(Dimension.COMPLAINT_TYPE, str(event.data.get("complaint_type") or "unknown"))
    if country:
        yield series_key(Dimension.COUNTRY, country)
    if client:
        yield series_key(Dimension.CLIENT, client)


def counter_attribute(quarter: int, counter: Counter) -> str:
    return f"q{quarter}_{counter.value}"


def sketch_attribute(quarter: int, kind: Latency, bin_key: int | None) -> str:
    """A latency bin's count: `q1_d_412`, `q1_d_m3` for a negative key, `q1_d_z` for zero values."""
    if bin_key is None:
        return f"q{quarter}_{kind.value}_z"
    return f"q{quarter}_{kind.value}_{'m' if bin_key < 0 else ''}{abs(bin_key)}"


def parse_attribute(name: str) -> tuple[int, str, str | None] | None:
    """(quarter, counter name or latency letter, bin or None for counters); None when not ours."""
    if len(name) < 4 or name[0] != "q" or name[2] != "_" or not name[1].isdigit():
        return None
    quarter, rest = int(name[1]), name[3:]
    if len(rest) > 2 and rest[1] == "_" and rest[0] in "pdt":
        return quarter, rest[0], rest[2:]
    return quarter, rest, None


# -- packing: a closed day's hour items as one item ----------------------------------------------

# A UTC day closed this long has no record left in the events stream (kept 24 hours) to add to its
# roll-ups: the backfill rebuilds, and packing packs, only such days.
CLOSED_AFTER = timedelta(hours=26)
PACKED = "d"  # the hour part of a packed day's sort key (`<series>#d`: after `#00`..`#23`)
# A packed item stays under DynamoDB's 400 KB item limit with room for its key and TTL; a series
# whose day would not fit (a busy day's latency bins) keeps its hour items.
PACKED_MAX_BYTES = 300_000


def packed_attribute(hour: int, name: str) -> str:
    """An hour item's attribute in the packed day: `h05q2_sent` is hour 05's `q2_sent`."""
    return f"h{hour:02d}{name}"


def last_closed_day(now: datetime) -> date:
    """The latest UTC day closed for CLOSED_AFTER at `now`."""
    return (now.astimezone(UTC) - CLOSED_AFTER).date() - timedelta(days=1)


def pack(hours: dict[int, dict[str, int]]) -> dict[str, int]:
    """The 24 hour items' values (hour -> attribute -> count) as one packed day's attributes."""
    packed: dict[str, int] = {}
    for hour, values in hours.items():
        if not 0 <= hour <= 23:
            raise ValueError(f"hour {hour} is not an hour of a UTC day")
        for name, value in values.items():
            if value:
                packed[packed_attribute(hour, name)] = value
    return packed


def unpack(packed: dict[str, int]) -> dict[int, dict[str, int]]:
    """A packed day's attributes back as hour -> attribute -> count (attributes not packed are
    ignored: the key, the TTL, the version)."""
    hours: dict[int, dict[str, int]] = {}
    for name, value in packed.items():
        if len(name) > 3 and name[0] == "h" and name[1:3].isdigit():
            hours.setdefault(int(name[1:3]), {})[name[3:]] = value
    return hours


def merge(*parts: dict[str, int]) -> dict[str, int]:
    """Counters added attribute by attribute (a packed day and hour items written after it)."""
    total: dict[str, int] = {}
    for part in parts:
        for name, value in part.items():
            total[name] = total.get(name, 0) + value
    return {name: value for name, value in total.items() if value}


def item_bytes(values: dict[str, int]) -> int:
    """An upper bound of the DynamoDB size of these number attributes: each name's bytes plus a
    number's (1 byte per 2 significant digits, plus 1; rounded up here)."""
    return sum(len(name.encode()) + len(str(abs(value))) // 2 + 2 for name, value in values.items())


# -- reading: windows, zones, buckets ------------------------------------------------------------


class Resolution(StrEnum):
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"


def floor_quarter(moment: datetime) -> datetime:
    moment = moment.astimezone(UTC)
    return moment.replace(minute=moment.minute - moment.minute % 15, second=0, microsecond=0)


def ceil_quarter(moment: datetime) -> datetime:
    floored = floor_quarter(moment)
    return floored if floored == moment.astimezone(UTC) else floored + QUARTER


def bucket_start(moment: datetime, zone: ZoneInfo, resolution: Resolution) -> datetime:
    """The start of the local bucket of `zone` holding `moment`, as a UTC time. In UTC because
    Python compares and subtracts two times of the same zone by their wall clocks: the repeated
    hour of a DST fall-back would be one bucket, and a 23-hour day 24 hours long. Show it with
    `.astimezone(zone)`, which gives each bucket its own offset."""
    local = moment.astimezone(zone)
    if resolution is Resolution.HOUR:
        return local.replace(minute=0, second=0, microsecond=0).astimezone(UTC)
    day = local.date()
    if resolution is Resolution.WEEK:
        day -= timedelta(days=day.weekday())  # ISO weeks: Monday
    elif resolution is Resolution.MONTH:
        day = day.replace(day=1)
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def quarters(since: datetime, until: datetime) -> Iterator[datetime]:
    """The UTC quarter starts of a quarter-aligned window [since, until)."""
    at = since
    while at < until:
        yield at
        at += QUARTER


def bucket_starts(since: datetime, until: datetime, zone: ZoneInfo, resolution: Resolution) -> list[datetime]:
    """Every local bucket the window touches, in order, as UTC times (gap-filling: each is listed,
    idle or not)."""
    starts: dict[datetime, None] = {}
    at = since
    while at < until:
        start = bucket_start(at, zone, resolution)
        starts.setdefault(start, None)
        # Jump close to the next bucket, then walk quarters to find its exact start.
        at = max(at + QUARTER, _next_guess(start, resolution))
    return list(starts)


def _next_guess(start: datetime, resolution: Resolution) -> datetime:
    """A UTC time just before the next local bucket (never past it): buckets vary (DST, months)."""
    shortest = {
        Resolution.HOUR: timedelta(minutes=30),  # Lord Howe's DST change is 30 minutes
        Resolution.DAY: timedelta(hours=22),
        Resolution.WEEK: timedelta(days=6, hours=22),
        Resolution.MONTH: timedelta(days=27, hours=22),
    }[resolution]
    return floor_quarter(start + shortest)


def utc_days(since: datetime, until: datetime) -> list[str]:
    """The UTC days (yyyy-mm-dd) a window [since, until) touches: the roll-up partitions to read."""
    first, last = since.astimezone(UTC).date(), (until - timedelta(microseconds=1)).astimezone(UTC).date()
    return [f"{first + timedelta(days=n)}" for n in range((last - first).days + 1)]


# -- the figures -----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Counters and latency bins summed over some quarters."""

    counts: dict[str, int] = field(default_factory=dict)
    bins: dict[str, dict[str, int]] = field(default_factory=dict)  # latency letter -> bin -> count

    def add_counter(self, name: str, value: int) -> None:
        self.counts[name] = self.counts.get(name, 0) + value

    def add_bin(self, kind: str, bin_name: str, value: int) -> None:
        kind_bins = self.bins.setdefault(kind, {})
        kind_bins[bin_name] = kind_bins.get(bin_name, 0) + value

    def merge(self, other: Tally) -> None:
        for name, value in other.counts.items():
            self.add_counter(name, value)
        for kind, kind_bins in other.bins.items():
            for bin_name, value in kind_bins.items():
                self.add_bin(kind, bin_name, value)

    def get(self, counter: Counter) -> int:
        return self.counts.get(counter.value, 0)

    @property
    def idle(self) -> bool:
        return not any(self.counts.values())


def rate(numerator: int, denominator: int) -> float | None:
    """A share in 0-1; None when the denominator is 0. Counted by event time, a window can hold
    more deliveries than sends (sent at 23:59, delivered at 00:00): capped at 1."""
    if denominator == 0:
        return None
    return min(1.0, numerator / denominator)


def pct_change(current: int, previous: int) -> float | None:
    """Relative change (0.5 = +50%); None when the previous value is 0."""
    if previous == 0:
        return None
    return round((current - previous) / previous, 6)


def rate_pp(current: float | None, previous: float | None) -> float | None:
    """Percentage-point difference of two 0-1 rates (0.25 vs 0.20 = 5.0); None when either is None."""
    if current is None or previous is None:
        return None
    return round((current - previous) * 100, 6)
