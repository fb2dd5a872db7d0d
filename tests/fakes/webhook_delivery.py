"""In-memory fakes of the webhook_delivery area's ports (`postline/webhook_delivery/ports.py`): the
delivery store and the retry workflow."""

from __future__ import annotations

import threading
from datetime import datetime

from postline.webhook_delivery.domain import Delivery


class InMemoryDeliveries:
    """DeliveryStore for webhook delivery: a save is refused when another attempt was recorded
    since it was read (or always, with `lose_races`), as the DynamoDB store's condition does."""

    def __init__(self) -> None:
        self.items: dict[str, Delivery] = {}
        self.lose_races = False
        self._lock = threading.Lock()

    def create(self, delivery: Delivery) -> bool:
        with self._lock:
            return self.items.setdefault(delivery.id, delivery) is delivery

    def get(self, delivery_id: str) -> Delivery | None:
        return self.items.get(delivery_id)

    def save(self, delivery: Delivery, *, attempts_before: int) -> bool:
        with self._lock:
            if self.lose_races or len(self.items[delivery.id].attempts) != attempts_before:
                return False
            self.items[delivery.id] = delivery
            return True


class RecordingWorkflow:
    """RetryWorkflow: the deliveries handed to it and when they are due."""

    def __init__(self) -> None:
        self.started: list[tuple[str, datetime]] = []

    def start(self, delivery_id: str, due: datetime) -> None:
        self.started.append((delivery_id, due))
