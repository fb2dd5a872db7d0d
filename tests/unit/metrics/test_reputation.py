"""The reputation score (metrics/reputation.py): its anchors, the danger line, the minimum volume,
which bounces count, and how series add up into domains, pools and addresses; and the series a
sent, bounced or complained event with a source adds to the roll-ups."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from postline.events.domain import Event, EventType
from postline.metrics.domain import Counter, Tally, contribution
from postline.metrics.reputation import (
    DANGER_LINE,
    MIN_SENT,
    Rates,
    Snapshot,
    in_danger,
    raw_score,
    score,
    scores_of,
)

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sent", "bounced", "complained", "expected"),
    [
        (1000, 0, 0, 100),
        (10_000, 0, 5, 85),  # 0.05% complaints: halfway to the 0.1% review line
        (1000, 0, 1, 70),  # 0.1%: Gmail's and Yahoo's target, SES's review line
        (1000, 0, 2, 55),
        (1000, 0, 3, 40),  # 0.3%: never to be reached (Gmail, Yahoo): the danger line
        (1000, 0, 4, 20),
        (1000, 0, 5, 0),  # 0.5%: SES may pause
        (1000, 0, 50, 0),
        (1000, 20, 0, 88),  # 2% bounces
        (1000, 50, 0, 70),  # 5%: SES's review line
        (1000, 75, 0, 40),  # 7.5%: the danger line for bounces
        (1000, 100, 0, 0),  # 10%: SES may pause
        (1000, 1000, 0, 0),
        (1000, 50, 3, 40),  # the lower sub-score wins
    ],
)
def test_the_score_follows_the_published_lines(sent: int, bounced: int, complained: int, expected: int) -> None:
    assert score(Rates(sent=sent, bounced=bounced, complained=complained)) == expected


def test_the_danger_line_is_reached_exactly_at_0_3_percent_or_7_5_percent() -> None:
    assert not in_danger(Rates(sent=100_000, complained=299))
    assert in_danger(Rates(sent=100_000, complained=300))
    assert in_danger(Rates(sent=1000, complained=3))
    assert not in_danger(Rates(sent=100_000, bounced=7_499))
    assert in_danger(Rates(sent=100_000, bounced=7_500))
    raw = raw_score(Rates(sent=100_000, complained=299))
    assert raw is not None and DANGER_LINE < raw < DANGER_LINE + 1


def test_below_the_minimum_volume_there_is_no_score() -> None:
    assert score(Rates(sent=MIN_SENT - 1, complained=MIN_SENT - 1)) is None
    assert not in_danger(Rates(sent=MIN_SENT - 1, complained=MIN_SENT - 1))
    assert score(Rates(sent=MIN_SENT)) == 100
    assert score(Rates()) is None


def test_only_hard_and_undetermined_bounces_count() -> None:
    tally = Tally()
    for counter, value in (
        (Counter.SENT, 100),
        (Counter.BOUNCED, 30),
        (Counter.BOUNCE_HARD, 4),
        (Counter.BOUNCE_UNDETERMINED, 1),
        (Counter.BOUNCE_SOFT, 20),
        (Counter.BOUNCE_SUPPRESSED, 5),
        (Counter.COMPLAINED, 0),
    ):
        tally.add_counter(counter.value, value)
    rates = Rates.of(tally)
    assert (rates.sent, rates.bounced, rates.complained) == (100, 5, 0)
    assert rates.bounce_rate == 0.05 and score(rates) == 70


def _tally(sent: int, complained: int = 0, hard: int = 0) -> Tally:
    tally = Tally()
    tally.add_counter(Counter.SENT.value, sent)
    tally.add_counter(Counter.COMPLAINED.value, complained)
    tally.add_counter(Counter.BOUNCE_HARD.value, hard)
    return tally


def test_series_add_up_into_domains_pools_and_addresses() -> None:
    scores = scores_of(
        [
            ("sending_domain#a.example", _tally(60)),
            ("sending_domain#a.example", _tally(60, complained=1)),  # another quarter of it
            ("sending_ip#pool-1#10.0.0.1", _tally(1000)),
            ("sending_ip#pool-1#10.0.0.2", _tally(1000, complained=6)),
            ("sending_ip#pool-2#10.0.0.2", _tally(1000)),  # the address moved pools
            ("sending_ip#pool-3#", _tally(500, complained=1)),  # SES's pool: no address known
            ("tag#x", _tally(1000, complained=1000)),
            ("all", _tally(1000, complained=1000)),
        ]
    )
    assert {name: (r.sent, r.complained) for name, r in scores.domains.items()} == {"a.example": (120, 1)}
    assert {p: (r.sent, r.complained) for p, r in scores.pools.items()} == {
        "pool-1": (2000, 6),
        "pool-2": (1000, 0),
        "pool-3": (500, 1),
    }
    assert {ip: (r.sent, r.complained) for ip, r in scores.ips.items()} == {
        "10.0.0.1": (1000, 0),
        "10.0.0.2": (2000, 6),
    }
    assert scores.keys_in_danger() == {"domain:a.example", "pool:pool-1"}

    snapshot = Snapshot.of(scores, own_pools={"pool-1"}, version=3)
    assert snapshot.pools == {"pool-1": 40}  # pool-2 is not the account's (a platform pool): not scored
    assert snapshot.ips == {"10.0.0.1": 100, "10.0.0.2": 40}
    assert snapshot.domains == {"a.example": 0}
    assert snapshot.danger == {"domain:a.example", "pool:pool-1"} and snapshot.version == 3
    other = Snapshot.of(scores, own_pools=set(), version=1)
    assert other.pools == {} and other.danger == {"domain:a.example"}


def _event(kind: EventType, **data: object) -> Event:
    return Event(
        id=f"evt_{uuid.uuid4().hex}",
        account_id="acct_1",
        type=kind,
        message_id="msg_1",
        recipient="someone@gmail.com",
        timestamp=NOW,
        data=dict(data),
        sending_domain="a.example",
        created_at=NOW,
        expires_at=int((NOW + timedelta(days=30)).timestamp()),
    )


def test_only_sends_bounces_and_complaints_with_a_source_count_in_its_series() -> None:
    source = {"ip_pool": "pool-1", "ip": "10.0.0.1"}
    for kind in (EventType.SENT, EventType.BOUNCED, EventType.COMPLAINED):
        plan = contribution(_event(kind, **source))
        assert plan is not None and "sending_ip#pool-1#10.0.0.1" in plan.series
    for kind, data in (
        (EventType.DELIVERED, source),  # counted elsewhere, not here: no extra write per delivery
        (EventType.DELAYED, source),
        (EventType.SENT, {"ip_pool_overflow": "pool-1"}),  # overflowed to the host's own address
    ):
        plan = contribution(_event(kind, **data))
        assert plan is not None and not any(s.startswith("sending_ip#") for s in plan.series), (kind, data)
    # SES picks the address in the pool's configuration set: the pool is known, its address is not.
    for kind in (EventType.SENT, EventType.BOUNCED, EventType.COMPLAINED):
        plan = contribution(_event(kind, ip_pool="pool-1"))
        assert plan is not None and [s for s in plan.series if s.startswith("sending_ip#")] == ["sending_ip#pool-1#"]
    # The ip_pool dimension: the pool a copy went through, or the warming pool it overflowed from.
    through = contribution(_event(EventType.SENT, ip_pool="pool-1", ip="10.0.0.1"))
    assert through is not None and "ip_pool#pool-1" in through.series
    overflowed = contribution(_event(EventType.SENT, ip_pool="shared-1", ip="10.0.0.9", ip_pool_overflow="pool-1"))
    assert overflowed is not None and [s for s in overflowed.series if s.startswith("ip_pool#")] == [
        "ip_pool#pool-1:overflow"
    ]
    # an open's `ip` is the reader's, not a source
    opened = contribution(_event(EventType.OPENED, ip="203.0.113.9", user_agent="Mozilla/5.0 Safari"))
    assert opened is not None and not any(s.startswith("sending_ip#") for s in opened.series)
