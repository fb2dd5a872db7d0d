"""What sending needs: message storage, the content vault, the dispatch queue and idempotency.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from postline.events.domain import Event
    from postline.keys.access import Environment
    from postline.sending.dispatch_job import DispatchJob
    from postline.sending.domain import Content, IdempotentCall, Message, RecipientState, StoredMessage

Result = TypeVar("Result", bound=BaseModel)
# A message's encrypted content as the vault stored it (str, bytes and int values); opaque to services.
Sealed = dict[str, Any]


class MessageStore(Protocol):
    def create(self, messages: list[Message], sealed: list[Sealed], events: list[Event]) -> None:
        """Stores new messages with their sealed content and their queued events; repeating it
        changes nothing."""
        ...

    def get(self, message_id: str) -> Message | None: ...

    def stored(self, message_ids: list[str]) -> dict[str, StoredMessage]:
        """Which of these messages are stored (consistent reads), with their time and recipients."""
        ...

    def get_many(self, message_ids: list[str]) -> dict[str, Message]:
        """The stored ones among `message_ids`, by id (one read for a queue batch's messages)."""
        ...

    def list_scheduled(self, account_id: str, *, page: int, per_page: int) -> tuple[list[Message], int]: ...

    def cancel(self, message: Message, events: list[Event], now: datetime) -> bool:
        """Marks a scheduled message cancelled; False when it is no longer scheduled."""
        ...

    def claim(self, message_id: str, owner: str, now: datetime, lease_seconds: int) -> tuple[Message, Sealed] | None:
        """Takes the message's delivery lease unless another worker holds a live one; returns the
        message as of the claim and its sealed content, or None when the lease is taken."""
        ...

    def release(self, message: Message, owner: str) -> None: ...

    def record(
        self, message: Message, recipient: str, attempt: int, owner: str, events: list[Event], *, release: bool = False
    ) -> bool:
        """Writes one recipient's new state (from `message`), then its events, only if `owner` still
        holds the lease and the attempt is newer than the last recorded; with `release`, the same
        write gives the lease up (the last recipient of a delivery). The events are kept with the
        state, so the next claim (or `settle`) writes them again if this writer died in between."""
        ...

    def settle(self, message_id: str) -> None:
        """Writes again the events of the message's last record, as they were (a job that finds
        nothing left to do: the job before it may have died between the record and its events)."""
        ...

    def advance(
        self, message: Message, recipient: str, expected: set[RecipientState], events: list[Event], *, step: int | str
    ) -> bool:
        """Writes a recipient's state reported after hand-over (from `message`), then its events, only
        while the stored state is one of `expected`; False when it no longer is (a repeated report
        writes its recorded events again). `step`: what the events' ids were made with (event_id)."""
        ...

    def restore(self, message: Message, recipient: str, events: list[Event]) -> None:
        """Writes the events of a report whose change to `recipient` is recorded already (this report's
        worker may have died in between, and a later report moved the recipient on): as first made
        while the message still keeps them, else each only where it is not stored."""
        ...

    def mark_engagement(self, message_id: str, field: str, at: datetime) -> None:
        """Sets opened_at / clicked_at the first time only."""
        ...


class ContentVault(Protocol):
    def seal(self, items: list[tuple[str, Content]]) -> list[Sealed]:
        """Encrypts each (message id, content) under its own data key; one KMS call for all."""
        ...

    def open(self, message_id: str, sealed: Sealed) -> Content: ...


class DispatchQueue(Protocol):
    def enqueue(self, jobs: list[DispatchJob], *, not_before: datetime | None = None) -> None:
        """Queues jobs now, or for `not_before`: a queue delay when that is near enough (SQS: 15
        minutes), else a one-time schedule (EventBridge Scheduler) that queues them then."""
        ...

    def unschedule(self, message_id: str) -> None:
        """Deletes the message's pending schedule, if it has one."""
        ...


class Idempotency(Protocol):
    def once(
        self,
        call: IdempotentCall,
        *,
        scope: str,
        account_id: str,
        env: Environment,
        model: type[Result],
        produce: Callable[[], Result],
    ) -> Result:
        """produce() at most once per (account, environment, scope, key): a replay returns its stored
        result. Test and live keys of one account never share a record (Stripe's rule)."""
        ...


class IpPoolNames(Protocol):
    """Whether a send's `ip_pool` names a pool it may use (ip_pools/service.py SourcePicker)."""

    def exists(self, account_id: str, reference: str) -> bool:
        """The account's pool or a platform pool of that id or name."""
        ...
