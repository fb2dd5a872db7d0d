"""What services need from the outside world. Adapters implement these; tests pass fakes."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from datetime import datetime, timedelta
from typing import Protocol

from postline.domain.accounts import Account
from postline.domain.audit import AuditEntry
from postline.domain.delivery import Outcome
from postline.domain.dispatch import DispatchJob, Parcel
from postline.domain.domains import SendingDomain
from postline.domain.event_query import QueryPlan, SearchResult
from postline.domain.events import Event
from postline.domain.exports import ExportJob
from postline.domain.keys import ApiKey
from postline.domain.messages import Content, Message, RecipientState
from postline.domain.quota import EmailLimits
from postline.domain.signing_keys import SigningKey
from postline.domain.suppressions import SuppressionSource, SuppressionType
from postline.domain.templates import Template
from postline.domain.verification import MailRoute
from postline.domain.webhook_delivery import ClientCertificate, Delivery, DeliveryStatus, HttpAnswer
from postline.domain.webhook_history import HistoryRead
from postline.domain.webhook_resend import ResendJob
from postline.domain.webhooks import WebhookEndpoint

Sealed = dict[str, str]  # a message's encrypted content as the vault stored it; opaque to services


class Clock(Protocol):
    def now(self) -> datetime: ...


class IdFactory(Protocol):
    def new_id(self, prefix: str = "") -> str: ...

    def secret(self, nbytes: int) -> str: ...


class SecretHasher(Protocol):
    def hash(self, secret: str) -> str: ...


class AccountStore(Protocol):
    def get_account(self, account_id: str) -> Account | None: ...

    def create_account(self, account: Account, audit: AuditEntry) -> None: ...

    def update_account(self, account: Account, audit: AuditEntry) -> None: ...

    def platform_sending_paused(self) -> bool: ...

    def set_platform_sending_paused(self, paused: bool, audit: AuditEntry) -> None: ...


class KeyStore(Protocol):
    def find_key_by_hash(self, key_hash: str) -> tuple[str, str] | None:
        """(account_id, key_id) of the key whose secret hashes to key_hash, if any."""
        ...

    def get_key_with_account(self, account_id: str, key_id: str) -> tuple[ApiKey | None, Account | None]:
        """Both read strongly consistent in one round trip: a rotated secret must fail at once."""
        ...

    def get_key(self, account_id: str, key_id: str) -> ApiKey | None: ...

    def list_keys(self, account_id: str) -> list[ApiKey]: ...

    def create_key(self, key: ApiKey, *, max_keys: int, audit: AuditEntry) -> None:
        """Raises Forbidden(plan_limit_reached) when the account already holds max_keys."""
        ...

    def update_key(self, key: ApiKey, audit: AuditEntry) -> None: ...

    def rotate_key(self, key: ApiKey, *, previous_hash: str, audit: AuditEntry) -> None: ...

    def delete_key(self, key: ApiKey, audit: AuditEntry) -> None: ...

    def touch_last_used(self, key: ApiKey, now: datetime) -> None: ...


class AuditStore(Protocol):
    def record(self, entry: AuditEntry) -> None: ...

    def list_audit(self, account_id: str, *, page: int, per_page: int) -> tuple[list[AuditEntry], int]: ...


class CounterStore(Protocol):
    def count_request(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        """Atomically add one request to the account's window; returns the new count."""
        ...

    def count_source_request(self, source: str, window_start: int, *, expires_at: int) -> int:
        """Atomically add one request to a source address's window (ratelimit.source_key); the new count."""
        ...

    def usage(self, account_id: str, *, month: str, day: str) -> dict[str, int]:
        """Counters of the month and day: emails, emails_daily, verify."""
        ...


class QuotaStore(Protocol):
    def consume_emails(self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits) -> str | None:
        """Atomically count `count` emails against the month and the day, unless that would pass a
        limit; returns None when counted, else which limit stopped it ("monthly" or "daily")."""
        ...

    def release_emails(self, account_id: str, count: int, *, month: str, day: str, test: bool) -> None:
        """Gives back emails counted for a send that then failed before it was accepted."""
        ...


class MessageStore(Protocol):
    def create(self, messages: list[Message], sealed: list[Sealed], events: list[Event]) -> None:
        """Stores new messages with their queued events; repeating it changes nothing."""
        ...

    def get(self, message_id: str) -> Message | None: ...

    def list_scheduled(self, account_id: str, *, page: int, per_page: int) -> tuple[list[Message], int]: ...

    def cancel(self, message: Message, events: list[Event], now: datetime) -> bool:
        """Marks a scheduled message cancelled; False when it is no longer scheduled."""
        ...

    def claim(self, message_id: str, owner: str, now: datetime, lease_seconds: int) -> tuple[Message, Sealed] | None:
        """Takes the message's delivery lease unless another worker holds a live one; returns the
        message as of the claim and its sealed content, or None when the lease is taken."""
        ...

    def release(self, message: Message, owner: str) -> None: ...

    def record(self, message: Message, recipient: str, attempt: int, owner: str, events: list[Event]) -> bool:
        """Writes one recipient's new state (from `message`) and its events in one transaction,
        only if `owner` still holds the lease and the attempt is newer than the last recorded."""
        ...

    def advance(self, message: Message, recipient: str, expected: set[RecipientState], events: list[Event]) -> bool:
        """Writes a recipient's state reported after hand-over (from `message`) with its events, only
        while the stored state is one of `expected`; False when it no longer is."""
        ...

    def mark_engagement(self, message_id: str, field: str, at: datetime) -> None:
        """Sets opened_at / clicked_at the first time only."""
        ...


class EventStore(Protocol):
    def put(self, events: list[Event]) -> None: ...


class EventSearch(Protocol):
    def search(
        self, account_id: str, plan: QueryPlan, *, limit: int, count: bool, budget_seconds: float
    ) -> SearchResult:
        """Up to `limit` events of the plan, newest first, whether more match, and (when `count`)
        the number of all matches. Raises TimeoutError when that takes longer than the budget."""
        ...


class EventStream(Protocol):
    def stream(self, account_id: str, plan: QueryPlan) -> Iterator[Event]:
        """Every event of the plan, newest first, read a page at a time."""
        ...


class ExportJobs(Protocol):
    def create_or_find(self, job: ExportJob, now: datetime) -> ExportJob:
        """Stores the new job unless one of the same fingerprint is still pending or processing,
        which it returns instead."""
        ...

    def get(self, account_id: str, export_id: str) -> ExportJob | None: ...

    def claim(self, job: ExportJob, now: datetime, lease: timedelta) -> ExportJob | None:
        """Makes the job processing as its next attempt, under a lease; None while another attempt
        holds a live lease, or once the job ended."""
        ...

    def release(self, job: ExportJob) -> None:
        """Ends the lease of the job's (failed) attempt, so the next delivery may claim it at once."""
        ...

    def finish(self, job: ExportJob) -> bool:
        """Stores the job completed or failed, only if its attempt still holds it; frees its fingerprint."""
        ...


class ExportUpload(Protocol):
    def write(self, data: bytes) -> None: ...

    def complete(self) -> None:
        """Makes the file appear, whole."""
        ...

    def abort(self) -> None: ...


class ExportFiles(Protocol):
    def upload(self, job: ExportJob) -> ExportUpload:
        """Starts writing the job's one file, discarding what an earlier attempt left unfinished."""
        ...

    def download_url(self, job: ExportJob, expires_in: int) -> str: ...


class ExportQueue(Protocol):
    def enqueue(self, job: ExportJob) -> None: ...


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


class Suppressions(Protocol):
    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        """The addresses (lowercased) on a bounces, unsubscribes or complaints list, minus allowlisted ones."""
        ...

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
        """Puts the address on a list; True when it was not on it yet (adding again changes nothing)."""
        ...


class SendingDomains(Protocol):
    def is_verified(self, account_id: str, domain: str) -> bool: ...

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        """The account's verified sending domain of that name, with its DKIM key; None otherwise."""
        ...


class MailRoutes(Protocol):
    def route(self, domain: str) -> MailRoute:
        """Where the domain's mail goes, as DNS says (a DNS failure is a route with lookup_error)."""
        ...


class Templates(Protocol):
    def get_template(self, account_id: str, template_id: str) -> Template | None: ...


class Transport(Protocol):
    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        """Hands each parcel to the next hop; one outcome per parcel, in order."""
        ...


# -- webhook delivery ---------------------------------------------------------------------------


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


class ResendJobs(Protocol):
    def create(self, job: ResendJob) -> None: ...

    def get(self, account_id: str, job_id: str) -> ResendJob | None: ...

    def start(self, job: ResendJob, matched: int) -> ResendJob:
        """queued -> running with its match count; the stored job as it is after (a repeated
        message finds it running or completed already and changes nothing)."""
        ...

    def stop(self, job: ResendJob, error_message: str, now: datetime) -> None:
        """Completes a job that cannot go on, with the reason."""
        ...

    def count(self, job: ResendJob, delivery_id: str, *, succeeded: bool) -> bool:
        """Adds one attempted resend to the counters, once per delivery (False when counted already)."""
        ...

    def complete_if_done(self, job: ResendJob, now: datetime) -> bool:
        """running -> completed once attempted reaches matched; True for the call that completed it."""
        ...


class ResendQueue(Protocol):
    def enqueue_job(self, job: ResendJob) -> None: ...

    def enqueue_attempts(self, job: ResendJob, delivery_ids: list[str]) -> None:
        """One message per manual delivery to attempt."""
        ...


class EndpointDirectory(Protocol):
    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        """The account's enabled endpoints, secrets decrypted."""
        ...

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None: ...

    def record_success(self, account_id: str, endpoint_id: str) -> None:
        """Resets the endpoint's failure streak."""
        ...

    def record_failure(self, account_id: str, endpoint_id: str, now: datetime) -> WebhookEndpoint | None:
        """Adds a fully-failed delivery to the streak of an enabled endpoint; the endpoint after it."""
        ...

    def auto_disable(self, endpoint: WebhookEndpoint, entry: AuditEntry) -> bool:
        """Disables an endpoint whose streak qualifies, with its audit entry; False if another did."""
        ...


class SigningKeyStore(Protocol):
    def keys(self) -> list[SigningKey]: ...

    def published(self, now: datetime) -> list[SigningKey]: ...

    def rotate(self, now: datetime, *, force: bool = False) -> str | None:
        """Mints a new active key when due (or forced); the new kid, or None."""
        ...


class Signer(Protocol):
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, Ed25519 signature) by the active platform key."""
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


class UrlGuard(Protocol):
    def check(self, url: str) -> None:
        """Raises ValidationFailed unless webhooks may go to `url`: https (http only where private
        URLs are allowed), no credentials, and every address the host resolves to public unless
        private URLs are allowed. Delivery calls it again at send time (DNS rebinding)."""
        ...


class WebhookEndpoints(Protocol):
    """Endpoints with their auth decrypted; storage keeps every secret encrypted."""

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None: ...

    def list_endpoints(self, account_id: str, *, page: int, per_page: int) -> tuple[list[WebhookEndpoint], int]:
        """One page, oldest first, and the total count."""
        ...

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        """Every enabled endpoint of the account (the fan-out's read: one Query)."""
        ...

    def create_endpoint(self, endpoint: WebhookEndpoint, *, max_endpoints: int, audit: AuditEntry) -> None:
        """Raises Forbidden(plan_limit_reached) when the account already holds max_endpoints."""
        ...

    def update_endpoint(
        self, endpoint: WebhookEndpoint, *, fields: set[str], expected_updated_at: datetime, audit: AuditEntry
    ) -> None:
        """Writes only `fields` of the endpoint, if it still has the updated_at it was read with
        (else NotFound): counters written meanwhile by delivery are kept."""
        ...

    def delete_endpoint(self, endpoint: WebhookEndpoint, audit: AuditEntry) -> None: ...
