"""In-memory fakes of the webhook_delivery area's ports (`postline/webhook_delivery/ports.py`): the
delivery store and the retry workflow."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING

from postline.webhook_delivery.domain import Delivery, DeliveryStatus
from postline.webhook_delivery.history import HistoryRead, sort_key
from postline.webhook_delivery.store import endpoint_key

if TYPE_CHECKING:
    from postline.webhook_delivery.ports import DeliveryStore, RetryWorkflow


class InMemoryDeliveries:
    """DeliveryStore for webhook delivery: a save is refused when another attempt was recorded
    since it was read (or always, with `lose_races`), as the DynamoDB store's condition does.
    Reads by endpoint go through the adapter's month partitions and sort keys, and list a delivery
    once a save has put it in the index, as the adapter's sparse by_endpoint does (not while it is
    only opened); a history read has no time budget to run out of, so it never stops short
    (`resume_at` stays None)."""

    def __init__(self) -> None:
        self.items: dict[str, Delivery] = {}
        self.indexed: set[str] = set()  # saved at least once: in by_endpoint
        self.lose_races = False
        self.erased_events: set[str] = set()  # a data removal's marks (the adapter's tombstone at erasure_mark_id)
        self.tombstones: set[str] = set()  # erased deliveries' ids: a create there is refused, as the adapter's
        self._lock = threading.Lock()

    def create(self, delivery: Delivery) -> bool:
        with self._lock:
            if delivery.id in self.tombstones:
                return False
            return self.items.setdefault(delivery.id, delivery) is delivery

    def get(self, delivery_id: str) -> Delivery | None:
        return self.items.get(delivery_id)

    def get_many(self, delivery_ids: list[str]) -> dict[str, Delivery]:
        return {d: self.items[d] for d in delivery_ids if d in self.items}

    def save(self, delivery: Delivery, *, attempts_before: int) -> bool:
        with self._lock:
            current = self.items.get(delivery.id)  # None: deleted meanwhile (a data removal): stays deleted
            if self.lose_races or current is None or len(current.attempts) != attempts_before:
                return False
            self.items[delivery.id] = delivery
            self.indexed.add(delivery.id)
            return True

    def erased(self, event_id: str) -> bool:
        return event_id in self.erased_events

    def erase(self, delivery_id: str, now: datetime) -> None:
        with self._lock:
            self.items.pop(delivery_id, None)
            self.indexed.discard(delivery_id)
            self.tombstones.add(delivery_id)

    def for_endpoint(
        self,
        account_id: str,
        endpoint_id: str | None,
        months: list[str],
        *,
        since: datetime,
        until: datetime,
        statuses: Collection[DeliveryStatus] = (),
        event_types: Collection[str] = (),
    ) -> Iterator[Delivery]:
        low, high = sort_key(since, ""), f"{sort_key(until, '')}~"  # the adapter's BETWEEN
        for month in months:
            partition = endpoint_key(account_id, endpoint_id, month)
            chosen = [
                d
                for d in list(self.items.values())
                if d.id in self.indexed
                and endpoint_key(d.account_id, d.endpoint_id, f"{d.created_at:%Y-%m}") == partition
                and low <= sort_key(d.created_at, d.id) <= high
                and (not statuses or d.status in statuses)
                and (not event_types or d.event_type in event_types)
            ]
            yield from sorted(chosen, key=lambda d: sort_key(d.created_at, d.id), reverse=True)

    def read_history(
        self,
        account_id: str,
        endpoint_id: str,
        months: list[str],
        *,
        since: datetime,
        until: datetime,
        before: str | None,
        statuses: Collection[DeliveryStatus],
        event_types: Collection[str],
        want: int,
        budget_seconds: float,
    ) -> HistoryRead:
        found = self.for_endpoint(
            account_id, endpoint_id, months, since=since, until=until, statuses=statuses, event_types=event_types
        )
        older = (d for d in found if before is None or sort_key(d.created_at, d.id) < before)
        return HistoryRead(list(islice(older, want)))


class RecordingWorkflow:
    """RetryWorkflow: the deliveries handed to it and when they are due."""

    def __init__(self) -> None:
        self.started: list[tuple[str, datetime]] = []

    def start(self, delivery_id: str, due: datetime) -> None:
        self.started.append((delivery_id, due))


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _deliveries: DeliveryStore = InMemoryDeliveries()
    _workflow: RetryWorkflow = RecordingWorkflow()
