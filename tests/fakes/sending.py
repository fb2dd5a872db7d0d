"""In-memory fakes of the sending area's ports (`postline/sending/ports.py`): messages, the content vault,
the dispatch queue and idempotency."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from postline.events.domain import Event
from postline.keys.access import Environment
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import Content, IdempotentCall, Message, RecipientState, Schedule, StoredMessage
from postline.sending.outbox import Outbox
from postline.sending.ports import Result, Sealed
from postline.sending.store import scheduled_sort_key
from postline.shared.pagination import page_window

if TYPE_CHECKING:
    from postline.sending.ports import ContentVault, DispatchQueue, Idempotency, MessageStore


class InMemoryMessages:
    """MessageStore: the adapter's conditions, in memory. `record` writes only while `owner` holds
    the lease and the attempt is newer than the recorded one; `advance` only from an expected state;
    `cancel` only a scheduled message nobody holds. A scheduled message is listed, soonest first,
    until it is claimed or cancelled (both take it out of the adapter's scheduled index). With an
    `outbox`, each message inserted is given to it, as the table's stream gives it to the outbox's
    function (in AWS, after the write: here, within `create`)."""

    def __init__(self, outbox: Outbox | None = None) -> None:
        self.outbox = outbox
        self.items: dict[str, Message] = {}
        self.leases: dict[str, str] = {}
        self.events: list[Event] = []  # what was written with each step
        self.settled: list[str] = []  # messages whose last record's events a job wrote again
        self._unlisted: set[str] = set()  # claimed: out of the scheduled index for good

    def create(self, messages: list[Message], sealed: list[Sealed], events: list[Event]) -> None:
        inserted = [message.model_copy(deep=True) for message in messages if message.id not in self.items]
        for message in inserted:
            self.items[message.id] = message.model_copy(deep=True)
        self.events.extend(events)
        if self.outbox is not None and inserted:
            self.outbox.relay(inserted)

    def get(self, message_id: str) -> Message | None:
        message = self.items.get(message_id)
        return message.model_copy(deep=True) if message else None

    def stored(self, message_ids: list[str]) -> dict[str, StoredMessage]:
        return {
            message_id: StoredMessage(self.items[message_id].created_at, dict(self.items[message_id].recipients))
            for message_id in message_ids
            if message_id in self.items
        }

    def get_many(self, message_ids: list[str]) -> dict[str, Message]:
        return {m: self.items[m].model_copy(deep=True) for m in message_ids if m in self.items}

    def list_scheduled(self, account_id: str, *, page: int, per_page: int) -> tuple[list[Message], int]:
        scheduled = sorted(
            (
                (scheduled_sort_key(m.send_at, m.id), m)
                for m in self.items.values()
                if m.account_id == account_id
                and m.schedule is Schedule.SCHEDULED
                and m.send_at is not None
                and m.id not in self._unlisted
            ),
            key=lambda keyed: keyed[0],
        )
        start, stop = page_window(page, per_page)
        return [m.model_copy(deep=True) for _, m in scheduled[start:stop]], len(scheduled)

    def cancel(self, message: Message, events: list[Event], now: datetime) -> bool:
        stored = self.items.get(message.id)
        if stored is None or stored.schedule is not Schedule.SCHEDULED or message.id in self.leases:
            return False
        self.items[message.id] = stored.model_copy(
            update={"schedule": Schedule.CANCELLED, "status": message.status, "recipients": dict(message.recipients)}
        )
        self.events.extend(events)
        return True

    def claim(self, message_id: str, owner: str, now: datetime, lease_seconds: int) -> tuple[Message, Sealed] | None:
        if message_id not in self.items or message_id in self.leases:
            return None
        self.leases[message_id] = owner
        self._unlisted.add(message_id)
        return self.items[message_id].model_copy(deep=True), {}

    def release(self, message: Message, owner: str) -> None:
        if self.leases.get(message.id) == owner:
            del self.leases[message.id]

    def record(
        self, message: Message, recipient: str, attempt: int, owner: str, events: list[Event], *, release: bool = False
    ) -> bool:
        stored = self.items[message.id]
        if self.leases.get(message.id) != owner or stored.attempts.get(recipient, 0) >= attempt:
            return False
        stored.recipients[recipient] = message.recipients[recipient]
        stored.attempts[recipient] = attempt
        if message.content_check is not None:
            stored.content_check = message.content_check
        self.events.extend(events)
        if release:
            del self.leases[message.id]
        return True

    def settle(self, message_id: str) -> None:
        self.settled.append(message_id)  # the fake writes a record's events with it: nothing to mend

    def advance(
        self, message: Message, recipient: str, expected: set[RecipientState], events: list[Event], *, step: int | str
    ) -> bool:
        stored = self.items[message.id]
        if stored.recipients.get(recipient) not in expected:
            return False
        stored.recipients[recipient] = message.recipients[recipient]
        return True

    def restore(self, message: Message, recipient: str, events: list[Event]) -> None:
        known = {event.id for event in self.events}
        self.events.extend(event for event in events if event.id not in known)

    def mark_engagement(self, message_id: str, field: str, at: datetime) -> None:
        stored = self.items.get(message_id)
        if stored is not None and getattr(stored, field) is None:  # the first time only
            self.items[message_id] = stored.model_copy(update={field: at})


class PlainVault:
    def __init__(self) -> None:
        self.contents: dict[str, Content] = {}

    def seal(self, items: list[tuple[str, Content]]) -> list[Sealed]:
        self.contents.update(items)
        return [{"id": message_id} for message_id, _ in items]

    def open(self, message_id: str, sealed: Sealed) -> Content:
        return self.contents[message_id]


class RecordingQueue:
    def __init__(self) -> None:
        self.jobs: list[DispatchJob] = []

    def enqueue(self, jobs: list[DispatchJob], *, not_before: datetime | None = None) -> None:
        self.jobs.extend(jobs)

    def unschedule(self, message_id: str) -> None:
        pass


class InMemoryIdempotency:
    """Each (account, environment, scope, key) produces once; a replay returns the first result."""

    def __init__(self) -> None:
        self.results: dict[tuple[str, Environment, str, str], Any] = {}

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
        slot = (account_id, env, scope, call.key)
        if slot not in self.results:
            self.results[slot] = produce()
        result: Result = self.results[slot]
        return result


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _messages: MessageStore = InMemoryMessages()
    _vault: ContentVault = PlainVault()
    _queue: DispatchQueue = RecordingQueue()
    _idempotency: Idempotency = InMemoryIdempotency()
