"""The per-account, per-minute API window, the source address's window of requests
without an account, and their response headers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from postline.accounts.domain import PLAN_LIMITS, Account, Plan
from postline.auth.ratelimit import DEFAULT_IP_RATE_LIMIT, WINDOW_SECONDS, decide, source_key, window_start

NOON = datetime(2025, 3, 14, 12, 0, 0, tzinfo=UTC)
NOON_EPOCH = int(NOON.timestamp())


@pytest.mark.parametrize(
    ("offset", "expected_start"),
    [
        (0, NOON_EPOCH),
        (0.001, NOON_EPOCH),
        (30, NOON_EPOCH),
        (59.999, NOON_EPOCH),
        (60, NOON_EPOCH + 60),
        (61.5, NOON_EPOCH + 60),
        (-0.5, NOON_EPOCH - 60),
    ],
)
def test_window_start_aligns_to_the_minute(offset: float, expected_start: int) -> None:
    assert window_start(NOON + timedelta(seconds=offset)) == expected_start


def test_window_start_is_the_same_in_any_timezone() -> None:
    plus_two = NOON.astimezone(timezone(timedelta(hours=2)))
    assert plus_two.hour == 14
    assert window_start(plus_two) == window_start(NOON)


@pytest.mark.parametrize(
    ("offset", "reset"),
    [(0, 60), (0.2, 60), (1, 59), (30, 30), (59, 1), (59.5, 1), (59.999, 1)],
)
def test_reset_counts_seconds_to_the_next_window_between_1_and_60(offset: float, reset: int) -> None:
    decision = decide(limit=10, used=1, now=NOON + timedelta(seconds=offset))
    assert decision.reset_seconds == reset
    assert 1 <= decision.reset_seconds <= WINDOW_SECONDS


@pytest.mark.parametrize(
    ("used", "remaining", "allowed"),
    [(1, 9, True), (9, 1, True), (10, 0, True), (11, 0, False), (500, 0, False)],
)
def test_remaining_never_goes_negative_and_the_limit_itself_is_allowed(
    used: int, remaining: int, allowed: bool
) -> None:
    decision = decide(limit=10, used=used, now=NOON)
    assert (decision.remaining, decision.allowed) == (remaining, allowed)


def test_headers_within_the_limit_carry_no_retry_after() -> None:
    decision = decide(limit=600, used=600, now=NOON + timedelta(seconds=15))
    assert decision.headers() == {"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "45"}


def test_headers_over_the_limit_add_retry_after_equal_to_the_reset() -> None:
    decision = decide(limit=600, used=601, now=NOON + timedelta(seconds=15))
    assert decision.headers() == {
        "X-RateLimit-Limit": "600",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": "45",
        "Retry-After": "45",
    }


@pytest.mark.parametrize(("plan", "per_minute"), [(Plan.FREE, 600), (Plan.PROFESSIONAL, 6_000)])
def test_plan_limits_are_the_published_ones(plan: Plan, per_minute: int) -> None:
    assert PLAN_LIMITS[plan].rate_limit_per_minute == per_minute
    assert Account(id="acct_1", plan=plan, created_at=NOON).effective_rate_limit == per_minute


@pytest.mark.parametrize("plan", list(Plan))
def test_an_account_override_replaces_the_plan_limit(plan: Plan) -> None:
    account = Account(id="acct_1", plan=plan, rate_limit_per_minute=12_000, created_at=NOON)
    assert account.effective_rate_limit == 12_000


def test_an_account_override_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        Account(id="acct_1", rate_limit_per_minute=0, created_at=NOON)


def test_the_source_window_is_the_smallest_published_window() -> None:
    assert DEFAULT_IP_RATE_LIMIT == PLAN_LIMITS[Plan.FREE].rate_limit_per_minute == 600


@pytest.mark.parametrize(
    ("source_ip", "key"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),  # an IPv6 client holds a /64: one window for it
        ("2001:DB8:1:2:bbbb:0:0:2", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:203.0.113.9", "203.0.113.9"),  # IPv4-mapped: the IPv4 address's window
        (None, "unknown"),
        ("", "unknown"),
        ("not an address", "unknown"),
    ],
)
def test_a_source_window_is_per_ipv4_address_or_ipv6_slash_64(source_ip: str | None, key: str) -> None:
    assert source_key(source_ip) == key
