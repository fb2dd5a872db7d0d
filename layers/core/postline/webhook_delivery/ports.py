"""What webhook delivery needs: deliveries, HTTP, the retry workflow, owner notices.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.webhook_delivery.domain import ClientCertificate, Delivery, DeliveryStatus, HttpAnswer
    from postline.webhook_delivery.history import HistoryRead


class DeliveryStore(Protocol):
    def create(self, delivery: Delivery) -> bool:
        """False when a delivery with this id exists already."""
        ...

    def get(self, delivery_id: str) -> Delivery | None: ...

    def get_many(self, delivery_ids: list[str]) -> dict[str, Delivery]:
        """The ones that exist, by id."""
        ...

    def save(self, delivery: Delivery, *, attempts_before: int) -> bool:
        """False when another worker recorded an attempt since `attempts_before` was read."""
        ...

    def erased(self, event_id: str) -> bool:
        """Whether a data removal erased the event (its mark, store.py), on a consistent read."""
        ...

    def erase(self, delivery_id: str, now: datetime) -> None:
        """The delivery replaced by a tombstone, as a data removal leaves (store.py)."""
        ...

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
        """Newest first, within [since, until], filtered: every match (a resend's selection)."""
        ...

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
        """Up to `want` of for_endpoint's deliveries; past the budget, what it found and where it stopped."""
        ...


class WebhookClient(Protocol):
    def post(
        self, url: str, body: bytes, headers: dict[str, str], *, certificate: ClientCertificate | None = None
    ) -> HttpAnswer: ...

    def token(
        self,
        cache_key: str,
        token_url: str,
        client_id: str,
        client_secret: str,
        *,
        scope: str | None = None,
        audience: str | None = None,
        fresh: bool = False,
    ) -> str:
        """An OAuth2 client-credentials token; raises TokenError when none can be had."""
        ...


class RetryWorkflow(Protocol):
    def start(self, delivery_id: str, due: datetime) -> None:
        """Holds the delivery until `due`, then asks for its next attempt (idempotent per delivery)."""
        ...


class Notifier(Protocol):
    def email_owner(self, account_id: str, subject: str, text: str) -> None:
        """A platform notice to the account's owner; never raises for a delivery problem."""
        ...
