"""Reputation: a 0-100 score of a sending domain, an IP pool and an address, from the last 30 days'
bounce and complaint rates in the metrics roll-ups. Pure: no I/O, no clock.

The rates (over the window, per copy handed over: `sent`, as SES counts them)
    bounce rate     (hard + undetermined bounces) / sent. A soft bounce (mailbox full, greylisted) is
                    not the sender's fault and a suppression-list bounce never reached a receiver; an
                    undetermined 5xx is a receiver saying no (delivery/outcomes.py treats it as hard).
                    SES's own bounce rate counts hard bounces only, for the same reasons.
    complaint rate  complaints / sent (Gmail's and Yahoo's spam rate; SES's complaint rate).

The lines providers act on
    complaints  0.1%  Gmail's and Yahoo's bulk-sender rules: keep it below; SES: account under review
                0.3%  Gmail and Yahoo: never reach it (mitigation is withdrawn, mail is refused)
                0.5%  SES: sending may be paused
    bounces     5%    SES: account under review
                10%   SES: sending may be paused

The score: each rate gives a sub-score, linear between these anchors (rate -> sub-score), 0 past the
last one; the score is the lower sub-score (either rate alone gets a sender blocked), rounded:

    complaint rate   0 -> 100   0.1% -> 70   0.3% -> 40   0.5% -> 0
    bounce rate      0 -> 100   5%   -> 70   7.5% -> 40   10%  -> 0

So 70 is SES's review line for either rate, 0 its pause line, and 40 the danger line: for complaints
it is Gmail's and Yahoo's never-exceed 0.3%, which sits midway between SES's review and pause lines;
for bounces, where no mailbox provider publishes a line, the same midpoint of SES's (7.5%).

    score > 70         healthy: below every line a provider reviews at
    40 < score <= 70   watch: at or past a review line
    score <= 40        danger (DANGER_LINE): a domain or pool of the account's that crosses it raises
                       an audit entry and a notice to the owner, once per crossing (metrics/
                       reputation_service.py)

Each domain, pool and address is scored apart, per mode (live mail, and test mode's simulated mail,
as the metrics routes answer).

Null below MIN_SENT copies in the window: with fewer, one complaint is already past 1% and the score
would say more about chance than about the sender (Google's Postmaster Tools likewise shows nothing
for low volumes).

What is scored (series of the roll-ups; metrics/domain.py series_of)
    a domain    `sending_domain#<name>`, every event of mail from it
    a pool      every `sending_ip#<pool id>#<address>` series of the pool: each `sent`, `bounced` and
                `complained` event carrying the pool and address its copy left from (copies through
                the SMTP relay, and test copies naming the ones a live copy would use; delivery/
                service.py puts them on the events). Only those
                three counters: one more item per sent copy, none for the other events.
    an address  the same series, summed over the account's pools (an address moved between its
                pools keeps its history)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import pairwise

from postline.metrics.domain import SOURCE, Counter, Dimension, Tally

WINDOW = timedelta(days=30)
MIN_SENT = 100
DANGER_LINE = 40  # a score at or below it is in danger
HEALTHY_LINE = 70
# One key range of a day partition holds both (metrics/domain.py SOURCE sorts right after it).
SCORED_SPAN = (Dimension.SENDING_DOMAIN.value, SOURCE)

COMPLAINT_ANCHORS = ((0.0, 100.0), (0.001, 70.0), (0.003, 40.0), (0.005, 0.0))
BOUNCE_ANCHORS = ((0.0, 100.0), (0.05, 70.0), (0.075, 40.0), (0.10, 0.0))


def parse_source(value: str) -> tuple[str, str] | None:
    """(pool id, address) of a source series' value (what follows `sending_ip#`); the address is ""
    where the copy's pool is known but not its address (SES picks it in the pool's configuration set)."""
    pool_id, hashed, ip = value.partition("#")
    return (pool_id, ip) if pool_id and hashed else None


@dataclass
class Rates:
    """What a score is made of: the window's copies sent, hard (and undetermined) bounces, complaints."""

    sent: int = 0
    bounced: int = 0
    complained: int = 0

    def add(self, other: Rates) -> None:
        self.sent += other.sent
        self.bounced += other.bounced
        self.complained += other.complained

    @classmethod
    def of(cls, tally: Tally) -> Rates:
        bounced = tally.get(Counter.BOUNCE_HARD) + tally.get(Counter.BOUNCE_UNDETERMINED)
        return cls(sent=tally.get(Counter.SENT), bounced=bounced, complained=tally.get(Counter.COMPLAINED))

    @property
    def bounce_rate(self) -> float | None:
        return min(1.0, self.bounced / self.sent) if self.sent else None

    @property
    def complaint_rate(self) -> float | None:
        return min(1.0, self.complained / self.sent) if self.sent else None


def _along(anchors: tuple[tuple[float, float], ...], rate: float) -> float:
    for (low, high_score), (high, low_score) in pairwise(anchors):
        if rate <= high:
            return high_score + (low_score - high_score) * (rate - low) / (high - low)
    return anchors[-1][1]


def raw_score(rates: Rates) -> float | None:
    """The unrounded score; None below MIN_SENT."""
    if rates.sent < MIN_SENT:
        return None
    complaints, bounces = rates.complained / rates.sent, rates.bounced / rates.sent
    return min(_along(COMPLAINT_ANCHORS, complaints), _along(BOUNCE_ANCHORS, bounces))


def score(rates: Rates) -> int | None:
    """0-100 (module docstring); None below MIN_SENT copies."""
    raw = raw_score(rates)
    return None if raw is None else round(raw)


def in_danger(rates: Rates) -> bool:
    """At or past the danger line (on the unrounded score: exactly 0.3% complaints is in danger)."""
    raw = raw_score(rates)
    return raw is not None and raw <= DANGER_LINE + 1e-9


@dataclass
class Scores:
    """An account's scored series in one mode: rates by domain name, pool id and address."""

    domains: dict[str, Rates] = field(default_factory=dict)
    pools: dict[str, Rates] = field(default_factory=dict)
    ips: dict[str, Rates] = field(default_factory=dict)

    def keys_in_danger(self) -> set[str]:
        """`domain:<name>` and `pool:<id>` of what is in danger now."""
        return {f"domain:{name}" for name, rates in self.domains.items() if in_danger(rates)} | {
            f"pool:{pool_id}" for pool_id, rates in self.pools.items() if in_danger(rates)
        }


def scores_of(tallies: Iterable[tuple[str, Tally]]) -> Scores:
    """The window's (series, tally) pairs (any number per series) summed into domains, pools and
    addresses; other series are ignored."""
    out = Scores()
    for series, tally in tallies:
        dimension, _, value = series.partition("#")
        rates = Rates.of(tally)
        if dimension == Dimension.SENDING_DOMAIN.value:
            out.domains.setdefault(value, Rates()).add(rates)
        elif dimension == SOURCE and (source := parse_source(value)) is not None:
            pool_id, ip = source
            out.pools.setdefault(pool_id, Rates()).add(rates)
            if ip:
                out.ips.setdefault(ip, Rates()).add(rates)
    return out


@dataclass
class Snapshot:
    """An account's scores in one mode as last evaluated (what the domain and pool routes show), and
    what was in danger then (`domain:<name>`, `pool:<id>`): a crossing is a key new to it."""

    domains: dict[str, int | None] = field(default_factory=dict)
    pools: dict[str, int | None] = field(default_factory=dict)
    ips: dict[str, int | None] = field(default_factory=dict)
    danger: set[str] = field(default_factory=set)
    version: int = 0  # every save is conditional on the version read

    @classmethod
    def of(cls, scores: Scores, *, own_pools: set[str], version: int) -> Snapshot:
        """Pools are the account's own only: a platform pool's reputation is all its accounts' mail,
        which one account's roll-ups cannot see (staff set it)."""
        pools = {pool_id: rates for pool_id, rates in scores.pools.items() if pool_id in own_pools}
        danger = {key for key in scores.keys_in_danger() if not key.startswith("pool:") or key[5:] in own_pools}
        return cls(
            domains={name: score(rates) for name, rates in scores.domains.items()},
            pools={pool_id: score(rates) for pool_id, rates in pools.items()},
            ips={ip: score(rates) for ip, rates in scores.ips.items()},
            danger=danger,
            version=version,
        )
