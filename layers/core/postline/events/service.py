"""Reading events: GET /v3/events, newest first, cursor-paginated, with an exact total."""

from __future__ import annotations

import time
from datetime import datetime

from postline.accounts.domain import retention_days
from postline.events.counts import (
    KnownCount,
    candidate_span,
    count_question,
    covered_span,
    known_count,
    partial_days,
    smallest_hour_classes,
    smallest_ttl_classes,
)
from postline.events.models import EventListPage, event_view
from postline.events.ports import EventCounts, EventSearch
from postline.events.query import (
    EventCursor,
    EventFilters,
    QueryPlan,
    decode_cursor,
    encode_cursor,
    pack_days,
    plan_query,
    resolve_window,
    unpack_days,
)
from postline.keys.identity import Principal
from postline.keys.ports import SecretHasher
from postline.shared.errors import QueryTimeout
from postline.shared.ports import Clock

QUERY_RETRY_AFTER_SECONDS = 5


class EventService:
    def __init__(
        self,
        *,
        events: EventSearch,
        hasher: SecretHasher,
        clock: Clock,
        budget_ms: int,
        counts: EventCounts | None = None,
    ) -> None:
        self._events = events
        self._counts = counts  # the roll-ups' event counters; None: every count reads the events
        self._hasher = hasher  # keys the cursor's MAC
        self._clock = clock
        self._budget_seconds = budget_ms / 1000

    def list_page(
        self, principal: Principal, filters: EventFilters, *, limit: int, cursor: str | None
    ) -> EventListPage:
        """The first page fixes the window and counts every match (what the roll-ups' counters cover
        of it from them, the rest from the events); the cursor carries both, so later pages cost no
        count and agree with the first whatever arrives meanwhile."""
        account = principal.account
        fingerprint = filters.fingerprint(account.id)
        now = self._clock.now()
        if cursor is not None:
            resumed = decode_cursor(cursor, self._hasher.hash, fingerprint=fingerprint)
            window, after, known_total, days = resumed.window, resumed.position, resumed.total_count, resumed.days
        else:
            found_window = resolve_window(
                filters,
                now=now,
                retention_days=retention_days(account, now),
                account_created=account.created_at,
            )
            if found_window is None:
                return EventListPage(items=[], has_more=False, next_cursor=None, total_count=0)
            window, after, known_total, days = found_window, None, None, None
        plan = plan_query(filters, window, after, unpack_days(window, days) if days is not None else None)
        try:
            started = time.monotonic()
            known = self._known(account.id, plan, now) if known_total is None else None
            result = self._events.search(
                account.id,
                plan,
                limit=limit,
                count=known_total is None,
                budget_seconds=self._budget_seconds - (time.monotonic() - started),
                known=known,
            )
        except TimeoutError as error:
            raise QueryTimeout(
                "The events query took longer than its time budget: narrow since/until or the filters, "
                "lower limit, or use POST /v3/events/export.",
                retry_after=QUERY_RETRY_AFTER_SECONDS,
            ) from error
        total = known_total if known_total is not None else result.total_count or 0
        if result.days_with_events is not None:
            days = pack_days(window, result.days_with_events)
        next_cursor = None
        if result.has_more:
            last = result.events[-1]
            position = EventCursor(
                fingerprint=fingerprint,
                total_count=total,
                since=window.since,
                until=window.until,
                at=last.timestamp,
                event_id=last.id,
                days=days,
            )
            next_cursor = encode_cursor(position, self._hasher.hash)
        return EventListPage(
            items=[event_view(event) for event in result.events],
            has_more=result.has_more,
            next_cursor=next_cursor,
            total_count=total,
        )

    def _known(self, account_id: str, plan: QueryPlan, now: datetime) -> KnownCount | None:
        """What the counters answer of the plan's count, or None (events/counts.py says when)."""
        question = count_question(plan)
        span = candidate_span(plan.window, now)
        if self._counts is None or question is None or span is None:
            return None
        low, high = span
        coverage, items = self._counts.read(
            account_id,
            question.series,
            low.date(),
            high.date(),
            partial_days(span),
            budget_seconds=self._budget_seconds,
        )
        ttl = smallest_ttl_classes(items)
        covered = covered_span(low, high, coverage, ttl, now, smallest_hour_classes(items))
        return known_count(question, covered, items) if covered is not None else None
