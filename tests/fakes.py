"""In-memory fakes of the areas' ports (`postline/<area>/ports.py`), for tests that touch no network.

`InMemoryStore` keeps the semantics of the resources table's DynamoDB stores (accounts, keys, audit, templates):
- items are stored as JSON-shaped dicts and read back through the models, so a value the
  adapter could not read back cannot be read back here either, and callers never share objects;
- every write that carries an audit entry records exactly that entry, atomically: a refused
  write records nothing;
- `create_key` refuses with Forbidden(plan_limit_reached) when the account is missing or
  already holds `max_keys` (the adapter's first condition, `attribute_exists(pk) AND key_count < :max`);
- `update_key` and `rotate_key` check the stored hash optimistically and raise NotFound when the
  key is gone, Conflict (a 409: a retry reads it again) when its hash changed; rotation swaps the
  hash lookup in the same step;
- `touch_last_used` writes only when the stored value is at least a minute old;
- audit entries list newest first (the adapter's sort key: created_at, then id), per account,
  platform entries (account_id None) apart.

Where the adapter lets a raw ClientError escape (a secret hash that is already taken), the fake
raises Conflict, so a test that reaches it fails loudly instead of silently diverging.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from postline.accounts.domain import Account
from postline.accounts.store import ORGANISATION_FIELDS
from postline.audit.domain import AuditEntry
from postline.delivery.outcomes import Outcome, OutcomeKind
from postline.delivery.parcel import Parcel
from postline.domains.domain import RecordType, SendingDomain
from postline.domains.records import Lookup
from postline.events.domain import Event
from postline.keys.access import Environment
from postline.keys.domain import LAST_USED_RESOLUTION_SECONDS, ApiKey
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import Content, IdempotentCall, Message, RecipientState, StoredMessage
from postline.sending.ports import Result, Sealed
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from postline.shared.mx import MailRoute
from postline.shared.pagination import page_window
from postline.subaccounts.domain import belongs_to, is_slug, is_subaccount_id
from postline.suppressions.domain import SuppressionSource, SuppressionType
from postline.templates.domain import Template
from postline.usage.quota import EmailLimits
from postline.verification.domain import MailboxProbe, ProbeOutcome, Registration
from postline.verification.models import Activity
from postline.webhook_delivery.domain import Delivery
from postline.webhooks.domain import WebhookEndpoint

DEFAULT_START = datetime(2025, 3, 14, 12, 0, 0, tzinfo=UTC)  # a window start: 12:00:00 exactly


class FixedClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime = DEFAULT_START) -> None:
        if start.tzinfo is None:
            raise ValueError("FixedClock wants an aware datetime")
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._now += timedelta(seconds=seconds)
        return self._now

    def set(self, when: datetime) -> datetime:
        if when < self._now:
            raise ValueError("the clock only moves forward")
        self._now = when
        return self._now


class SequentialIds:
    """Ids and secrets that count up: `key_000000000001`, bare ids as ordered UUIDs.

    Secrets lead with their counter, so consecutive secrets differ in their first characters
    (as random ones do) and a display prefix changes on rotation.
    """

    def __init__(self) -> None:
        self._ids = 0
        self._secrets = 0

    def new_id(self, prefix: str = "") -> str:
        self._ids += 1
        return f"{prefix}{self._ids:012d}" if prefix else str(uuid.UUID(int=self._ids))

    def secret(self, nbytes: int) -> str:
        self._secrets += 1
        head = f"{self._secrets:04d}"
        return (head + "S" * nbytes)[:nbytes]


class FakeHasher:
    """Keyed SHA-256, like the production hasher with a fixed pepper."""

    def __init__(self, pepper: str = "test-pepper") -> None:
        self._pepper = pepper.encode()
        self.calls = 0

    def hash(self, secret: str) -> str:
        self.calls += 1
        return hmac.new(self._pepper, secret.encode(), hashlib.sha256).hexdigest()


class FakeConsoleVerifier:
    """Console JWTs without cryptography: `issue` hands out opaque tokens mapped to claims."""

    def __init__(self) -> None:
        self._tokens: dict[str, dict[str, Any]] = {}
        self.verified: list[str] = []

    def issue(self, claims: dict[str, Any]) -> str:
        token = f"console.{len(self._tokens) + 1:04d}.sig"
        self._tokens[token] = dict(claims)
        return token

    def verify(self, token: str) -> dict[str, Any] | None:
        self.verified.append(token)
        claims = self._tokens.get(token)
        return dict(claims) if claims is not None else None


class RecordingMeter:
    """The Meter port in memory: every count, summed per metric and dimension set. Thread-safe, as
    the webhook fan-out counts from its pool."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, frozenset[tuple[str, str]]], int] = {}
        self._lock = threading.Lock()

    def count(self, name: str, value: int = 1, **dimensions: str) -> None:
        slot = (name, frozenset(dimensions.items()))
        with self._lock:
            self.counts[slot] = self.counts.get(slot, 0) + value

    def of(self, name: str) -> dict[frozenset[tuple[str, str]], int]:
        """`name`'s counts by dimension set: compare with `dims(...)`."""
        return {dimensions: value for (metric, dimensions), value in self.counts.items() if metric == name}


def dims(**dimensions: str) -> frozenset[tuple[str, str]]:
    """One dimension set, as RecordingMeter.of keys them."""
    return frozenset(dimensions.items())


class InMemoryCounters:
    """CounterStore: rate windows per account and per source (atomic add, first write sets the expiry)
    and usage counters."""

    def __init__(self) -> None:
        self.windows: dict[tuple[str, str, int], int] = {}
        self.expiries: dict[tuple[str, int], int] = {}
        self.source_windows: dict[tuple[str, int], int] = {}
        self.source_expiries: dict[tuple[str, int], int] = {}
        self._monthly: dict[tuple[str, str], dict[str, int]] = {}
        self._daily: dict[tuple[str, str], dict[str, int]] = {}

    def count_request(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        slot = (account_id, window_start)
        self.windows[slot] = self.windows.get(slot, 0) + 1
        self.expiries.setdefault(slot, expires_at)
        return self.windows[slot]

    def count_source_request(self, source: str, window_start: int, *, expires_at: int) -> int:
        slot = (source, window_start)
        self.source_windows[slot] = self.source_windows.get(slot, 0) + 1
        self.source_expiries.setdefault(slot, expires_at)
        return self.source_windows[slot]

    def usage(self, account_id: str, *, month: str, day: str) -> dict[str, int]:
        monthly = self._monthly.get((account_id, month), {})
        daily = self._daily.get((account_id, day), {})
        return {
            "emails": monthly.get("emails", 0),
            "verify": monthly.get("verify", 0),
            "test_emails": monthly.get("test_emails", 0),
            "test_verify": monthly.get("test_verify", 0),
            "emails_daily": daily.get("emails", 0),
        }

    def add_usage(
        self,
        account_id: str,
        *,
        month: str,
        day: str,
        emails: int = 0,
        verify: int = 0,
        test_emails: int = 0,
        test_verify: int = 0,
    ) -> None:
        """Count sends (month and day) and verifications (month), as the send path would; test keys'
        sends and verifications (month) on their own counters."""
        monthly = self._monthly.setdefault((account_id, month), {})
        monthly["emails"] = monthly.get("emails", 0) + emails
        monthly["verify"] = monthly.get("verify", 0) + verify
        monthly["test_emails"] = monthly.get("test_emails", 0) + test_emails
        monthly["test_verify"] = monthly.get("test_verify", 0) + test_verify
        daily = self._daily.setdefault((account_id, day), {})
        daily["emails"] = daily.get("emails", 0) + emails


class InMemorySubmissionCounters:
    """SubmissionCounters (postline/smtp/ports.py): windows per account and source, seats with leases."""

    def __init__(self) -> None:
        self.submissions: dict[tuple[str, int], int] = {}
        self.failures: dict[tuple[str, int], int] = {}
        self.seats: dict[str, dict[str, int]] = {}

    def count_submission(self, account_id: str, second: int) -> int:
        self.submissions[account_id, second] = self.submissions.get((account_id, second), 0) + 1
        return self.submissions[account_id, second]

    def count_auth_failure(self, source: str, window_start: int) -> int:
        self.failures[source, window_start] = self.failures.get((source, window_start), 0) + 1
        return self.failures[source, window_start]

    def auth_failures(self, source: str, window_start: int) -> int:
        return self.failures.get((source, window_start), 0)

    def take_seat(self, account_id: str, connection_id: str, *, limit: int, now: int, until: int) -> bool:
        seats = self.seats.setdefault(account_id, {})
        for stale in [held for held, lease in seats.items() if lease <= now]:
            del seats[stale]
        if len(seats) >= limit:
            return False
        seats[connection_id] = until
        return True

    def renew_seat(self, account_id: str, connection_id: str, *, until: int) -> None:
        if connection_id in self.seats.get(account_id, {}):
            self.seats[account_id][connection_id] = until

    def leave_seat(self, account_id: str, connection_id: str) -> None:
        self.seats.get(account_id, {}).pop(connection_id, None)


def _audit_sort_key(entry: AuditEntry) -> str:
    # The adapter's sort key: AUDIT#<created_at>#<id>, read in descending order.
    return f"{entry.created_at:%Y-%m-%dT%H:%M:%S.%f}#{entry.id}"


class InMemoryStore:
    """AccountStore + KeyStore + AuditStore with the DynamoDB adapter's semantics (see module doc)."""

    def __init__(self) -> None:
        self._accounts: dict[str, dict[str, Any]] = {}
        self._key_counts: dict[str, int] = {}
        self._keys: dict[tuple[str, str], dict[str, Any]] = {}
        self._hash_lookup: dict[str, tuple[str, str]] = {}
        self._audit: list[AuditEntry] = []
        self._platform_paused = False
        self.touch_calls: list[tuple[str, datetime]] = []  # every touch_last_used call
        self.touch_writes = 0  # the calls that passed the once-a-minute condition

    # -- audit ---------------------------------------------------------------------------------------

    def record(self, entry: AuditEntry) -> None:
        self._audit.append(AuditEntry.model_validate(entry.model_dump(mode="json")))

    def list_audit(self, account_id: str, *, page: int, per_page: int) -> tuple[list[AuditEntry], int]:
        entries = sorted(
            (e for e in self._audit if e.account_id == account_id),
            key=_audit_sort_key,
            reverse=True,
        )
        start, stop = page_window(page, per_page)
        return [e.model_copy() for e in entries[start:stop]], len(entries)

    # -- accounts ------------------------------------------------------------------------------------

    def get_account(self, account_id: str) -> Account | None:
        data = self._accounts.get(account_id)
        return Account.model_validate(data) if data is not None else None

    def create_account(self, account: Account, audit: AuditEntry) -> None:
        if account.id in self._accounts:
            raise ValidationFailed(f"account {account.id} already exists")
        self._accounts[account.id] = {**account.model_dump(mode="json"), "list_count": 0}  # as the adapter
        self._key_counts[account.id] = 0
        self.record(audit)

    def update_account(self, account: Account, audit: AuditEntry) -> None:
        if account.id not in self._accounts:
            raise NotFound(f"account {account.id} not found")
        stored = self._accounts[account.id]
        # SET of every field but id, created_at, list_count and the organisation's, as the adapter does.
        fields = account.model_dump(mode="json", exclude={"id", "created_at", "list_count", *ORGANISATION_FIELDS})
        self._accounts[account.id] = {**stored, **fields}
        self.record(audit)

    def platform_sending_paused(self) -> bool:
        return self._platform_paused

    def set_platform_sending_paused(self, paused: bool, audit: AuditEntry) -> None:
        self._platform_paused = paused
        self.record(audit)

    # -- keys ----------------------------------------------------------------------------------------

    def find_key_by_hash(self, key_hash: str) -> tuple[str, str] | None:
        return self._hash_lookup.get(key_hash)

    def get_key_with_account(self, account_id: str, key_id: str) -> tuple[ApiKey | None, Account | None]:
        return self.get_key(account_id, key_id), self.get_account(account_id)

    def get_key(self, account_id: str, key_id: str) -> ApiKey | None:
        data = self._keys.get((account_id, key_id))
        return ApiKey.model_validate(data) if data is not None else None

    def list_keys(self, account_id: str) -> list[ApiKey]:
        keys = [ApiKey.model_validate(data) for (owner, _), data in self._keys.items() if owner == account_id]
        return sorted(keys, key=lambda k: (k.created_at, k.id))

    def create_key(self, key: ApiKey, *, max_keys: int, audit: AuditEntry) -> None:
        count = self._key_counts.get(key.account_id)
        if key.account_id not in self._accounts or count is None or count >= max_keys:
            raise Forbidden(
                f"Your plan allows at most {max_keys} API keys; delete one or upgrade.",
                code="plan_limit_reached",
            )
        if (key.account_id, key.id) in self._keys:
            raise Conflict(f"API key {key.id} already exists")
        if key.key_hash in self._hash_lookup:
            raise Conflict("secret hash already taken (the adapter surfaces a raw ClientError here)")
        self._key_counts[key.account_id] = count + 1
        self._keys[(key.account_id, key.id)] = key.model_dump(mode="json")
        self._hash_lookup[key.key_hash] = (key.account_id, key.id)
        self.record(audit)

    def update_key(self, key: ApiKey, audit: AuditEntry) -> None:
        stored = self._keys.get((key.account_id, key.id))
        if stored is None:
            raise NotFound("API key not found")
        if stored["key_hash"] != key.key_hash:
            raise Conflict("API key changed concurrently; retry")
        self._keys[(key.account_id, key.id)] = key.model_dump(mode="json")
        self.record(audit)

    def rotate_key(self, key: ApiKey, *, previous_hash: str, audit: AuditEntry) -> None:
        stored = self._keys.get((key.account_id, key.id))
        if stored is None:
            raise NotFound("API key not found")
        if stored["key_hash"] != previous_hash:
            raise Conflict("API key rotated concurrently; retry")
        if key.key_hash in self._hash_lookup:
            raise Conflict("secret hash already taken (the adapter surfaces a raw ClientError here)")
        self._keys[(key.account_id, key.id)] = key.model_dump(mode="json")
        self._hash_lookup.pop(previous_hash, None)
        self._hash_lookup[key.key_hash] = (key.account_id, key.id)
        self.record(audit)

    def delete_key(self, key: ApiKey, audit: AuditEntry) -> None:
        if (key.account_id, key.id) not in self._keys:
            raise NotFound("API key not found")
        del self._keys[(key.account_id, key.id)]
        self._hash_lookup.pop(key.key_hash, None)
        self._key_counts[key.account_id] = self._key_counts.get(key.account_id, 0) - 1
        self.record(audit)

    def touch_last_used(self, key: ApiKey, now: datetime) -> None:
        self.touch_calls.append((key.id, now))
        stored = self._keys.get((key.account_id, key.id))
        if stored is None:
            return  # the adapter's condition fails on a deleted key and is swallowed
        previous = stored.get("last_used_at")
        epoch = int(now.timestamp())
        if previous is not None:
            previous_epoch = int(datetime.fromisoformat(previous).timestamp())
            if previous_epoch >= epoch - (LAST_USED_RESOLUTION_SECONDS - 1):
                return
        stored["last_used_at"] = now.isoformat()
        self.touch_writes += 1

    # -- for tests -----------------------------------------------------------------------------------

    def audit_entries(self) -> list[AuditEntry]:
        """Every recorded entry, in the order written (platform entries included)."""
        return [e.model_copy() for e in self._audit]

    def key_count(self, account_id: str) -> int:
        return self._key_counts[account_id]

    def plant_hash_lookup(self, key_hash: str, account_id: str, key_id: str) -> None:
        """Simulate a lookup item that lags behind its key (what the key item's hash check is for)."""
        self._hash_lookup[key_hash] = (account_id, key_id)

    def stored_strings(self) -> Iterator[str]:
        """Every string held anywhere in the store: item values, lookup keys and audit fields."""
        yield from _strings(self._accounts)
        yield from _strings(self._keys)
        for key_hash, (account_id, key_id) in self._hash_lookup.items():
            yield from (key_hash, account_id, key_id)
        for entry in self._audit:
            yield from _strings(entry.model_dump(mode="json"))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


class InMemoryWebhookEndpoints:
    """WebhookEndpoints with the DynamoDB adapter's semantics (`postline.webhooks.store`):
    - create refuses with Forbidden(plan_limit_reached) once the account holds max_endpoints;
    - update writes only the named fields, and only while the stored updated_at is the one the
      caller read (else NotFound), so counters written meanwhile survive;
    - lists are oldest first (ids sort by creation); every write records its audit entry in `audit`.
    """

    def __init__(self, audit: InMemoryStore) -> None:
        self._audit = audit
        self._items: dict[tuple[str, str], dict[str, Any]] = {}
        self._counts: dict[str, int] = {}

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None:
        data = self._items.get((account_id, endpoint_id))
        return WebhookEndpoint.model_validate(data) if data is not None else None

    def list_endpoints(self, account_id: str, *, page: int, per_page: int) -> tuple[list[WebhookEndpoint], int]:
        endpoints = self._all(account_id)
        start, stop = page_window(page, per_page)
        return endpoints[start:stop], len(endpoints)

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        return [e for e in self._all(account_id) if e.enabled]

    def create_endpoint(self, endpoint: WebhookEndpoint, *, max_endpoints: int, audit: AuditEntry) -> None:
        count = self._counts.get(endpoint.account_id, 0)
        if count >= max_endpoints:
            raise Forbidden(f"Your plan allows at most {max_endpoints} webhook endpoints.", code="plan_limit_reached")
        if (endpoint.account_id, endpoint.id) in self._items:
            raise RuntimeError(f"webhook endpoint id {endpoint.id} collided (the adapter's raw ClientError: a 500)")
        self._counts[endpoint.account_id] = count + 1
        self._items[(endpoint.account_id, endpoint.id)] = endpoint.model_dump(mode="json")
        self._audit.record(audit)

    def update_endpoint(
        self, endpoint: WebhookEndpoint, *, fields: set[str], expected_updated_at: datetime, audit: AuditEntry
    ) -> None:
        stored = self._items.get((endpoint.account_id, endpoint.id))
        if stored is None:
            raise NotFound(f"webhook endpoint {endpoint.id} not found")
        if datetime.fromisoformat(stored["updated_at"]) != expected_updated_at:
            raise Conflict(f"webhook endpoint {endpoint.id} changed concurrently; retry")
        data = endpoint.model_dump(mode="json")
        stored.update({name: data[name] for name in fields})
        self._audit.record(audit)

    def delete_endpoint(self, endpoint: WebhookEndpoint, audit: AuditEntry) -> None:
        if self._items.pop((endpoint.account_id, endpoint.id), None) is None:
            raise NotFound(f"webhook endpoint {endpoint.id} not found")
        self._counts[endpoint.account_id] -= 1
        self._audit.record(audit)

    def set_fields(self, account_id: str, endpoint_id: str, **fields: Any) -> None:
        """What delivery's own UpdateItem does (failure counters): no updated_at change, no audit."""
        self._items[(account_id, endpoint_id)].update(fields)

    def _all(self, account_id: str) -> list[WebhookEndpoint]:
        return [
            WebhookEndpoint.model_validate(data)
            for (owner, _), data in sorted(self._items.items())
            if owner == account_id
        ]


class StaticRoutes:
    """MailRoutes from a table: domain -> MailRoute; unknown domains do not exist (NXDOMAIN).
    Remembers the domains asked, in order."""

    def __init__(self, routes: dict[str, MailRoute] | None = None) -> None:
        self._routes = dict(routes or {})
        self.asked: list[str] = []

    def route(self, domain: str) -> MailRoute:
        self.asked.append(domain)
        return self._routes.get(domain, MailRoute(exists=False))


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


class NoEndpoints:
    """EndpointDirectory of an account with no endpoints (per-message webhook_urls only)."""

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        return []


class FixedSigner:
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        return "kid", b"signature"


SENDING_DOMAIN = "postline.test"


# -- sending and delivery ---------------------------------------------------------


class InMemoryMessages:
    """MessageStore: the adapter's conditions, in memory. `record` writes only while `owner` holds
    the lease and the attempt is newer than the recorded one; `advance` only from an expected state."""

    def __init__(self) -> None:
        self.items: dict[str, Message] = {}
        self.leases: dict[str, str] = {}
        self.events: list[Event] = []  # what was written with each step

    def create(self, messages: list[Message], sealed: list[Sealed], events: list[Event]) -> None:
        for message in messages:
            self.items.setdefault(message.id, message.model_copy(deep=True))
        self.events.extend(events)

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

    def claim(self, message_id: str, owner: str, now: datetime, lease_seconds: int) -> tuple[Message, Sealed] | None:
        if message_id not in self.items or message_id in self.leases:
            return None
        self.leases[message_id] = owner
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
        self.events.extend(events)
        if release:
            del self.leases[message.id]
        return True

    def advance(self, message: Message, recipient: str, expected: set[RecipientState], events: list[Event]) -> bool:
        stored = self.items[message.id]
        if stored.recipients.get(recipient) not in expected:
            return False
        stored.recipients[recipient] = message.recipients[recipient]
        return True


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


class UnlimitedQuotas:
    """Every send fits; the emails given back are remembered (account, count, month, day, test)."""

    def __init__(self) -> None:
        self.released: list[tuple[str, int, str, str, bool]] = []

    def consume_emails(self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits) -> str | None:
        return None

    def release_emails(self, account_id: str, count: int, *, month: str, day: str, test: bool) -> None:
        self.released.append((account_id, count, month, day, test))


class Faulty:
    """Any port with one method that raises: `times` times (then it works again), or always (None)."""

    def __init__(self, target: Any, method: str, *, times: int | None = 1, error: Exception | None = None) -> None:
        self._target, self._method, self._left = target, method, times
        self._error = error or ConnectionError(f"{method} is down")

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._target, name)
        if name != self._method:
            return attribute

        def failing(*args: Any, **kwargs: Any) -> Any:
            if self._left is None or self._left > 0:
                self._left = None if self._left is None else self._left - 1
                raise self._error
            return attribute(*args, **kwargs)

        return failing


class InMemorySuppressions:
    def __init__(self, *addresses: str) -> None:
        self.listed = {address.lower() for address in addresses}

    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        return {address.lower() for address in addresses} & self.listed

    def add(
        self,
        account_id: str,
        address: str,
        kind: SuppressionType,
        now: datetime,
        *,
        reason: str | None = None,
        source: SuppressionSource | None = None,
    ) -> bool:
        self.listed.add(address.lower())
        return True


class InMemoryComplaintLists:
    """ComplaintLists: (account, lower-case address) pairs on the complaints list; counts its reads."""

    def __init__(self, *entries: tuple[str, str]) -> None:
        self.entries = {(account_id, address.lower()) for account_id, address in entries}
        self.reads = 0

    def present(self, account_id: str, kind: SuppressionType, emails: list[str]) -> set[str]:
        self.reads += 1
        if kind is not SuppressionType.COMPLAINTS:
            return set()
        return {email for email in emails if (account_id, email) in self.entries}


class OneVerifiedDomain:
    """Every account has verified SENDING_DOMAIN (no DKIM key: the tests' mail is simulated or unsigned)."""

    def is_verified(self, account_id: str, domain: str) -> bool:
        return domain == SENDING_DOMAIN

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        return None

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        return None


class NoTemplates:
    def get_template(self, account_id: str, template_id: str) -> Template | None:
        return None


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


class ScriptedTransport:
    """Answers each recipient by the script (default: delivered), remembering every hand-over."""

    def __init__(self, script: dict[str, Outcome] | None = None) -> None:
        self.script = script or {}
        self.handed: list[str] = []

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            self.handed.append(parcel.recipient)
            yield self.script.get(parcel.recipient, Outcome(OutcomeKind.DELIVERED, smtp_response="250 ok"))


# -- the services over them ------------------------------------------------------------------------


# -- sending domains ----------------------------------------------------------------------------------


class InMemoryDomains:
    """The DomainStore port: names unique per account, the plan count refused at max_domains, writes
    guarded by revision, and each write's audit entry kept beside it (`audit`)."""

    def __init__(self) -> None:
        self.domains: dict[tuple[str, str], SendingDomain] = {}  # (account, name) -> domain
        self.audit: list[AuditEntry] = []

    def get_domain(self, account_id: str, domain_id: str) -> SendingDomain | None:
        return next((d for d in self.list_domains(account_id) if d.id == domain_id), None)

    def list_domains(self, account_id: str) -> list[SendingDomain]:
        return [d.model_copy() for (account, _), d in sorted(self.domains.items()) if account == account_id]

    def create_domain(self, domain: SendingDomain, *, max_domains: int, audit: AuditEntry) -> None:
        if len(self.list_domains(domain.account_id)) >= max_domains:
            raise Forbidden(f"at most {max_domains} sending domains", code="plan_limit_reached")
        if (domain.account_id, domain.domain) in self.domains:
            raise ValidationFailed(f"domain: this account already has {domain.domain}.")
        self.domains[(domain.account_id, domain.domain)] = domain.model_copy()
        self.audit.append(audit)

    def save_domain(
        self, domain: SendingDomain, *, expected_revision: int, audit: AuditEntry | None, rekeyed: bool = False
    ) -> bool:
        stored = self.domains.get((domain.account_id, domain.domain))
        if stored is None or stored.revision != expected_revision:
            return False
        self.domains[(domain.account_id, domain.domain)] = domain.model_copy(
            update={"revision": expected_revision + 1, "sent_count": stored.sent_count}
        )
        self.audit.extend([audit] if audit else [])
        return True

    def delete_domain(self, domain: SendingDomain, audit: AuditEntry) -> None:
        if self.domains.pop((domain.account_id, domain.domain), None) is None:
            raise NotFound(f"sending domain {domain.id} not found")
        self.audit.append(audit)

    def due_domains(self, now: datetime, limit: int) -> list[SendingDomain]:
        due = [d for d in self.domains.values() if d.next_check_at is not None and d.next_check_at <= now]
        return [d.model_copy() for d in sorted(due, key=lambda d: d.next_check_at or now)[:limit]]


class ZoneLookup:
    """The RecordLookup port over a dict: (name, type) -> values; `down` names answer with an error."""

    def __init__(self) -> None:
        self.zone: dict[tuple[str, RecordType], list[str]] = {}
        self.down: set[str] = set()

    def publish(self, name: str, record_type: RecordType, *values: str) -> None:
        self.zone[(name.lower(), record_type)] = list(values)

    def remove(self, name: str, record_type: RecordType) -> None:
        self.zone.pop((name.lower(), record_type), None)

    def lookup(self, name: str, record_type: RecordType) -> Lookup:
        if name.lower() in self.down:
            return Lookup(error=f"SERVFAIL for {name}")
        return Lookup(tuple(self.zone.get((name.lower(), record_type), ())))


class FixedDkimKeys:
    """One pre-made key for every domain: generating 2048-bit keys per test would be slow."""

    def __init__(self, private_pem: str, public_b64: str) -> None:
        self.pair = (private_pem, public_b64)

    def new_key(self) -> tuple[str, str]:
        return self.pair


class RecordingNotices:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str]] = []  # (account id, subject, text)

    def email_owner(self, account_id: str, subject: str, text: str) -> None:
        self.sent.append((account_id, subject, text))


class ScriptedIdentities:
    """The ProviderIdentities port: SES's DKIM verdict per domain as the test sets it (default not yet)."""

    def __init__(self) -> None:
        self.verified: set[str] = set()
        self.asked: list[str] = []
        self.signing: dict[str, str] = {}  # domain -> the selector SES signs with
        self.deleted: list[str] = []

    def dkim_verified(self, domain: SendingDomain) -> bool:
        self.asked.append(domain.domain)
        self.signing.setdefault(domain.domain, domain.dkim_selector)
        return domain.domain in self.verified

    def signing_key_changed(self, domain: SendingDomain) -> None:
        self.signing[domain.domain] = domain.dkim_selector

    def delete(self, domain: SendingDomain) -> None:
        self.deleted.append(domain.domain)


class ScriptedProber:
    """MailboxProber: a fixed answer per domain (default: accepted, not a catch-all); remembers each
    probe as (address, hosts, catch_all known)."""

    def __init__(self, answers: dict[str, MailboxProbe] | None = None) -> None:
        self._answers = dict(answers or {})
        self.probes: list[tuple[str, tuple[str, ...], bool | None]] = []

    def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> MailboxProbe:
        self.probes.append((address, mx_hosts, catch_all))
        return self._answers.get(domain, MailboxProbe(ProbeOutcome.ACCEPTED, False, "250 OK"))


class FixedRegistrations:
    """Registrations: domain -> registration date; others unreachable. Remembers the domains asked."""

    def __init__(self, dates: dict[str, datetime] | None = None) -> None:
        self._dates = dict(dates or {})
        self.asked: list[str] = []

    def registered_at(self, domain: str) -> Registration:
        self.asked.append(domain)
        if domain in self._dates:
            return Registration(self._dates[domain])
        return Registration(None, "the RDAP registry could not be reached (test)", unreachable=True)


class InMemoryDomainFacts:
    def __init__(self) -> None:
        self.catch_alls: dict[str, bool] = {}
        self.registrations: dict[str, tuple[Registration, datetime]] = {}  # domain -> (answer, kept until)

    def catch_all(self, domain: str, now: datetime) -> bool | None:
        return self.catch_alls.get(domain)

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None:
        self.catch_alls[domain] = catch_all

    def registration(self, domain: str, now: datetime) -> Registration | None:
        kept = self.registrations.get(domain)
        return kept[0] if kept is not None and kept[1] > now else None

    def remember_registration(self, domain: str, registration: Registration, now: datetime) -> None:
        if registration.registered is not None:
            self.registrations[domain] = (registration, now + timedelta(days=30))
        elif registration.unreachable:
            self.registrations[domain] = (registration, now + timedelta(hours=1))


class InMemoryVerificationCounters:
    def __init__(self) -> None:
        self.windows: dict[tuple[str, str, int], int] = {}
        self.used: dict[tuple[str, str, bool], int] = {}

    def count_validation(self, account_id: str, window_start: int, *, expires_at: int, route: str = "validate") -> int:
        window = (account_id, route, window_start)
        self.windows[window] = self.windows.get(window, 0) + 1
        return self.windows[window]

    def consume_verification(
        self, account_id: str, *, month: str, limit: int | None, test: bool, count: int = 1
    ) -> bool:
        used = self.used.get((account_id, month, test), 0)
        if limit is not None and used + count > limit:
            return False
        self.used[account_id, month, test] = used + count
        return True

    def used_verifications(self, account_id: str, *, month: str) -> int:
        return self.used.get((account_id, month, False), 0)

    def release_verification(self, account_id: str, *, month: str, test: bool) -> None:
        self.used[account_id, month, test] -= 1


class StaticActivity:
    def __init__(self, known: dict[tuple[str, str], Activity] | None = None) -> None:
        self._known = dict(known or {})

    def activity(self, account_id: str, address: str) -> Activity:
        return self._known.get((account_id, address), Activity())

    def activities(self, account_id: str, addresses: list[str]) -> dict[str, Activity]:
        return {a: self._known[(account_id, a)] for a in addresses if (account_id, a) in self._known}


class InMemorySubaccounts:
    """SubaccountStore over an InMemoryStore's accounts, as the adapter: a slug unique per parent, the
    plan's count checked first, writes only while the subaccount is its parent's and not deleted
    (else NotFound when gone, Conflict when trashed), a deletion trashes it and frees its slug."""

    def __init__(self, store: InMemoryStore) -> None:
        self._store = store
        self._slugs: dict[tuple[str, str], str] = {}  # (parent, slug) -> subaccount id

    def find_subaccount(self, parent_id: str, reference: str) -> Account | None:
        found = reference if is_subaccount_id(reference) else None
        if is_slug(reference):
            found = self._slugs.get((parent_id, reference))
        account = self._store.get_account(found) if found else None
        return account if account is not None and belongs_to(account, parent_id) else None

    def list_subaccounts(self, parent_id: str, *, page: int, per_page: int) -> tuple[list[Account], int]:
        ids = [sub for (parent, _), sub in sorted(self._slugs.items()) if parent == parent_id]
        start, stop = page_window(page, per_page)
        accounts = [self._store.get_account(sub) for sub in ids[start:stop]]
        return [a for a in accounts if a is not None and belongs_to(a, parent_id)], len(ids)

    def create_subaccount(self, account: Account, *, max_subaccounts: int, audits: Sequence[AuditEntry]) -> None:
        parent, slug = account.parent_account_id or "", account.slug or ""
        if self._store.get_account(parent) is None or sum(p == parent for p, _ in self._slugs) >= max_subaccounts:
            raise Forbidden(f"Your plan allows at most {max_subaccounts} subaccounts", code="plan_limit_reached")
        if (parent, slug) in self._slugs:
            raise ValidationFailed(f"slug: {slug!r} is taken")
        self._store._accounts[account.id] = {**account.model_dump(mode="json"), "list_count": 0}
        self._store._key_counts[account.id] = 0
        self._slugs[(parent, slug)] = account.id
        for audit in audits:
            self._store.record(audit)

    def update_subaccount(self, account: Account, fields: Sequence[str], audits: Sequence[AuditEntry]) -> None:
        self._stored(account).update(account.model_dump(mode="json", include=set(fields)))
        for audit in audits:
            self._store.record(audit)

    def delete_subaccount(self, account: Account, audits: Sequence[AuditEntry]) -> None:
        self._stored(account)["status"] = "trashed"
        del self._slugs[(account.parent_account_id or "", account.slug or "")]
        for audit in audits:
            self._store.record(audit)

    def _stored(self, account: Account) -> dict[str, Any]:
        stored = self._store._accounts.get(account.id)
        if stored is None:
            raise NotFound(f"subaccount {account.id} not found")
        if not belongs_to(Account.model_validate(stored), account.parent_account_id or ""):
            raise Conflict(f"subaccount {account.id} changed concurrently; retry")
        return stored
