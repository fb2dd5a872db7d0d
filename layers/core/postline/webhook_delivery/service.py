"""Delivering events to webhooks: fan-out from the events stream, the scheduled retries, resends.

- Fan-out: every new event becomes one delivery per target (each enabled endpoint that wants
  its type, plus the message's own webhook_url) and gets its first attempt at once.
- A delivery that needs another attempt is handed to the retry workflow, which wakes at
  `next_attempt_at` and calls `attempt` until the delivery is over.
- Delivery ids are deterministic per (event, target) and each attempt is recorded with a
  condition on the attempt count it read, so a redelivered stream record or a retried task
  finds the work already done instead of starting it twice. Receivers may still see an
  attempt twice when a worker dies between sending and recording: delivery is at least once,
  and every attempt carries the event and delivery ids to deduplicate on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from postline.audit.domain import Actor
from postline.audit.service import new_audit_entry
from postline.events.domain import Event, retention_expiry
from postline.events.ports import NewEvents
from postline.shared.ports import Clock, IdFactory, Meter
from postline.signing_keys.ports import Signer
from postline.webhook_delivery.domain import (
    ATTEMPT_HEADER,
    ATTEMPT_TIMEOUT_SECONDS,
    DELIVERY_ID_HEADER,
    ED25519_HEADER,
    EVENT_ID_HEADER,
    FINAL_STATUSES,
    Attempt,
    ClientCertificate,
    Delivery,
    DeliveryStatus,
    HttpAnswer,
    Target,
    TokenError,
    auto_disables,
    classify,
    delivery_id,
    ed25519_header,
    encode_body,
    payload,
    signed_content,
    standard_headers,
    standard_signed_content,
    static_auth_headers,
)
from postline.webhook_delivery.ports import DeliveryStore, Notifier, RetryWorkflow, WebhookClient
from postline.webhooks.domain import HmacAuth, MtlsAuth, OAuth2Auth, WebhookEndpoint
from postline.webhooks.ports import EndpointDirectory

logger = logging.getLogger(__name__)
_CONCURRENT_ATTEMPTS = 16
# Time an attempt may need (its 30 s and some to record it): with less left, the workflow makes it.
_HAND_OFF_BELOW_MS = int(ATTEMPT_TIMEOUT_SECONDS * 1000) + 5_000
# Metric: each recorded attempt, by `outcome` (the delivery's status after it: succeeded, retrying,
# failed) and `kind` (scheduled: the delivery's own schedule; resend: a manual delivery's one attempt).
WEBHOOK_ATTEMPTS = "WebhookAttempts"


class WebhookDeliverer:
    def __init__(
        self,
        *,
        stream: NewEvents,
        deliveries: DeliveryStore,
        endpoints: EndpointDirectory,
        signer: Signer,
        client: WebhookClient,
        workflow: RetryWorkflow,
        notifier: Notifier,
        retention_days: Callable[[str], int],
        ids: IdFactory,
        clock: Clock,
        meter: Meter,
    ) -> None:
        self._stream = stream
        self._deliveries = deliveries
        self._endpoints = endpoints
        self._signer = signer
        self._client = client
        self._workflow = workflow
        self._notifier = notifier
        self._retention_days = retention_days
        self._ids = ids  # the auto-disable's audit entry
        self._clock = clock
        self._meter = meter

    # -- fan-out --------------------------------------------------------------------------------

    def fan_out_records(self, records: list[dict[str, Any]], remaining_ms: Callable[[], int] | None = None) -> None:
        """The events table's stream consumer: fan_out of the events a batch of records inserted."""
        self.fan_out(self._stream.new_events(records), remaining_ms)

    def fan_out(self, events: Iterable[Event], remaining_ms: Callable[[], int] | None = None) -> None:
        """Opens the deliveries of new events and makes their first attempts, concurrently.

        Each delivery is opened (a conditional write) in the worker that attempts it: opened one
        after another, a stream batch of 100 events kept its last first attempt waiting for ~100
        writes (half a second at DynamoDB's ~5 ms). `remaining_ms` is the invocation's time left:
        a first attempt that could not finish in it goes to the retry workflow due now instead, so
        a batch with slow receivers neither times out (and is re-run from the start) nor holds the
        stream up.

        A data removal leaves a tombstone at each delivery key of an erased event (store.py), so a
        late record of it (the stream keeps them 24 hours) opens nothing; an endpoint created after
        the event may postdate the removal and have none, so for it (only then: one read, and
        rarely, as an endpoint is almost always older than the events it gets) the event's
        erasure mark is read first."""
        endpoints: dict[str, list[WebhookEndpoint]] = {}
        targets: list[tuple[Event, Target, WebhookEndpoint | None]] = []
        for event in events:
            if event.account_id not in endpoints:
                endpoints[event.account_id] = self._endpoints.enabled_endpoints(event.account_id)
            targets += [
                (event, target, endpoint) for target, endpoint in self._targets(event, endpoints[event.account_id])
            ]
        if not targets:
            return

        def open_and_attempt(event: Event, target: Target, endpoint: WebhookEndpoint | None) -> None:
            if endpoint is not None and endpoint.created_at > event.created_at and self._deliveries.erased(event.id):
                return  # a late record of an erased event, to an endpoint made since: no tombstone there
            delivery = self._open(event, target)
            if delivery is not None:
                self._first_attempt(delivery, endpoint, remaining_ms)

        # Named after this thread, as shared/parallel.py names its workers (traces, the call recorder).
        prefix = f"{threading.current_thread().name} > attempt"
        with ThreadPoolExecutor(max_workers=min(_CONCURRENT_ATTEMPTS, len(targets)), thread_name_prefix=prefix) as pool:
            # list() re-raises the first worker error, failing the batch so the stream retries it.
            list(pool.map(lambda each: open_and_attempt(*each), targets))

    def _first_attempt(
        self, delivery: Delivery, endpoint: WebhookEndpoint | None, remaining_ms: Callable[[], int] | None
    ) -> None:
        if remaining_ms is not None and remaining_ms() < _HAND_OFF_BELOW_MS:
            self._workflow.start(delivery.id, self._clock.now())  # the workflow's first wait ends at once
            return
        after = self._attempt(delivery, endpoint)
        if after.status is DeliveryStatus.RETRYING and after.next_attempt_at is not None:
            self._workflow.start(after.id, after.next_attempt_at)

    def _targets(
        self, event: Event, endpoints: list[WebhookEndpoint]
    ) -> Iterable[tuple[Target, WebhookEndpoint | None]]:
        for endpoint in endpoints:
            if endpoint.wants(event.type):  # the interface: events of a disabled endpoint are not queued
                yield Target(endpoint_id=endpoint.id, url=endpoint.url), endpoint
        if event.webhook_url:
            yield Target(endpoint_id=None, url=event.webhook_url), None

    def _open(self, event: Event, target: Target) -> Delivery | None:
        """The delivery to attempt now, or None when it is already under way or over."""
        now = self._clock.now()
        delivery = Delivery(
            id=delivery_id(event.id, target),
            account_id=event.account_id,
            endpoint_id=target.endpoint_id,
            url=target.url,
            event_id=event.id,
            event_type=str(event.type),
            message_id=event.message_id,
            body=encode_body(payload(event)),
            created_at=now,
            expires_at=retention_expiry(now, self._retention_days(event.account_id)),
        )
        return self._opened(delivery)

    def _opened(self, delivery: Delivery) -> Delivery | None:
        """`delivery` created, or the stored one when it is still to be attempted; None when it is
        already under way (its workflow restarted, idempotently) or over."""
        if self._deliveries.create(delivery):
            return delivery
        existing = self._deliveries.get(delivery.id)
        if existing is None or existing.status in FINAL_STATUSES:
            return None
        if existing.status is DeliveryStatus.PENDING:
            return existing  # created, then the worker died before its first attempt was recorded
        if existing.next_attempt_at is not None:
            self._workflow.start(existing.id, existing.next_attempt_at)  # idempotent: same name, same input
        return None

    # -- the service's own notices ----------------------------------------------------------------

    def deliver(self, delivery: Delivery) -> None:
        """A notice of the service's own to a caller's URL (a bulk verification job's completion),
        as a per-message webhook is delivered: Ed25519-signed, first attempt now, then the same
        retry schedule. Its id is deterministic, so asking twice delivers it once."""
        opened = self._opened(delivery)
        if opened is not None:
            self._first_attempt(opened, None, None)

    # -- the workflow's task ------------------------------------------------------------------------

    def attempt(self, delivery_id_: str) -> tuple[bool, datetime | None]:
        """One scheduled attempt, if it is due. Returns (over, next_attempt_at)."""
        delivery = self._deliveries.get(delivery_id_)
        if delivery is None or delivery.status in FINAL_STATUSES:
            return True, None
        now = self._clock.now()
        if delivery.next_attempt_at is not None and now < delivery.next_attempt_at:
            return False, delivery.next_attempt_at  # woken early (a restarted workflow): wait again
        endpoint = None
        if delivery.endpoint_id is not None:
            endpoint = self._endpoints.get_endpoint(delivery.account_id, delivery.endpoint_id)
            if endpoint is None or not endpoint.enabled:
                cancelled = delivery.model_copy(update={"status": DeliveryStatus.CANCELLED, "next_attempt_at": None})
                self._deliveries.save(cancelled, attempts_before=len(delivery.attempts))
                return True, None
        after = self._attempt(delivery, endpoint)
        return after.status in FINAL_STATUSES, after.next_attempt_at

    # -- resends --------------------------------------------------------------------------------

    def resend_attempt(self, delivery_id_: str) -> Delivery | None:
        """The single attempt of a manual delivery (a resend), unless it has had it; the delivery as
        it ends (None when it does not exist). Its endpoint gone or disabled: cancelled, no attempt.

        A data removal does not find a resend's copy before its attempt (its id follows from the
        job, and by_endpoint holds it from its attempt on), so its event's erasure mark is read
        before (erased: no POST) and after (erased meanwhile: the record just written goes): a copy
        recorded before the mark was written is in by_endpoint when the removal reads it."""
        delivery = self._deliveries.get(delivery_id_)
        if delivery is None or not delivery.manual or delivery.attempts or delivery.status in FINAL_STATUSES:
            return delivery
        if self._deliveries.erased(delivery.event_id):
            self._deliveries.erase(delivery.id, self._clock.now())
            return None
        after = self._resend(delivery)
        if self._deliveries.erased(delivery.event_id):
            self._deliveries.erase(delivery.id, self._clock.now())
            return None
        return after

    def _resend(self, delivery: Delivery) -> Delivery | None:
        endpoint = None
        if delivery.endpoint_id is not None:
            endpoint = self._endpoints.get_endpoint(delivery.account_id, delivery.endpoint_id)
            if endpoint is None or not endpoint.enabled:
                cancelled = delivery.model_copy(update={"status": DeliveryStatus.CANCELLED})
                if self._deliveries.save(cancelled, attempts_before=0):
                    return cancelled
                return self._deliveries.get(delivery.id)
        return self._attempt(delivery, endpoint)

    # -- one attempt ----------------------------------------------------------------------------

    def _attempt(self, delivery: Delivery, endpoint: WebhookEndpoint | None) -> Delivery:
        if endpoint is not None and endpoint.url != delivery.url:
            # The endpoint moved since the delivery was opened: its current auth goes only to its
            # current URL, never to the old host.
            delivery = delivery.model_copy(update={"url": endpoint.url})
        number = len(delivery.attempts) + 1
        now = self._clock.now()
        answer = self._send(delivery, endpoint, number, now)
        attempt = Attempt(
            number=number,
            at=now,
            result=classify(answer.status_code, cut_short=answer.cut_short),
            status_code=answer.status_code,
            latency_ms=answer.latency_ms,
            error=answer.error,
        )
        after = delivery.after(attempt)
        if not self._deliveries.save(after, attempts_before=number - 1):
            logger.info("delivery %s: attempt %d was recorded by another worker", delivery.id, number)
            return self._deliveries.get(delivery.id) or after
        kind = "resend" if after.manual else "scheduled"
        self._meter.count(WEBHOOK_ATTEMPTS, outcome=after.status.value, kind=kind)
        if endpoint is not None and not after.manual:
            self._count(after, endpoint, now)
        elif endpoint is not None and after.status is DeliveryStatus.SUCCEEDED:
            self._clear_streak(endpoint)  # a resend's success counts
        return after

    def _clear_streak(self, endpoint: WebhookEndpoint) -> None:
        """A success ends the endpoint's failure streak: written only when the endpoint, as read for
        this attempt (the fan-out's batch, the workflow's task), had one: most successes write
        nothing. A failure recorded since that read, by a delivery that ended while this attempt
        was under way, is taken as coming after this success (the two ran at once), so the
        streak keeps it."""
        if endpoint.consecutive_failures or endpoint.failing_since is not None:
            self._endpoints.record_success(endpoint.account_id, endpoint.id)

    def _send(self, delivery: Delivery, endpoint: WebhookEndpoint | None, number: int, now: datetime) -> HttpAnswer:
        timestamp = int(now.timestamp())
        kid, signature = self._signer.sign(signed_content(timestamp, delivery.body), now)
        auth = endpoint.auth if endpoint else None  # per-message URLs: the Ed25519 signatures only
        _, standard_signature = self._signer.sign(standard_signed_content(delivery.id, timestamp, delivery.body), now)
        secrets = auth.valid_secrets(now) if isinstance(auth, HmacAuth) else []
        headers = {
            ED25519_HEADER: ed25519_header(timestamp, signature, kid),
            ATTEMPT_HEADER: str(number),
            EVENT_ID_HEADER: delivery.event_id,
            DELIVERY_ID_HEADER: delivery.id,
            **standard_headers(delivery.id, timestamp, delivery.body, secrets, standard_signature),
        }
        headers.update(static_auth_headers(auth, timestamp, delivery.body, now))
        certificate = ClientCertificate(auth.cert_pem, auth.key_pem) if isinstance(auth, MtlsAuth) else None
        body = delivery.body.encode()
        if not isinstance(auth, OAuth2Auth):
            return self._client.post(delivery.url, body, headers, certificate=certificate)
        assert endpoint is not None
        answer = HttpAnswer(None, 0)
        for fresh in (False, True):  # oauth2: one retry with a fresh token on 401/403
            try:
                token = self._client.token(
                    endpoint.id,
                    auth.token_url,
                    auth.client_id,
                    auth.client_secret,
                    scope=auth.scope,
                    audience=auth.audience,
                    fresh=fresh,
                )
            except TokenError as exc:
                return HttpAnswer(None, answer.latency_ms, error=f"oauth2: {exc}")
            answer = self._client.post(delivery.url, body, {**headers, "Authorization": f"Bearer {token}"})
            if answer.status_code not in (401, 403):
                break
        return answer

    def _count(self, delivery: Delivery, endpoint: WebhookEndpoint, now: datetime) -> None:
        """Keeps the endpoint's streak of fully-failed deliveries; disables it at 20 spanning 72 hours."""
        if delivery.status is DeliveryStatus.SUCCEEDED:
            self._clear_streak(endpoint)
            return
        if delivery.status is not DeliveryStatus.FAILED:
            return
        counted = self._endpoints.record_failure(endpoint.account_id, endpoint.id, now)
        if counted is None or not auto_disables(counted.consecutive_failures, counted.failing_since, now):
            return
        details = f"{counted.consecutive_failures} consecutive failed deliveries since {counted.failing_since}"
        entry = new_audit_entry(
            self._ids, Actor.system(), endpoint.account_id, "webhook.auto_disable", endpoint.id, details, now=now
        )
        if self._endpoints.auto_disable(counted, entry):
            self._notifier.email_owner(
                endpoint.account_id,
                "Your webhook endpoint was disabled",
                f"The webhook endpoint {endpoint.id} ({endpoint.url}) failed {counted.consecutive_failures} "
                f"deliveries in a row since {counted.failing_since:%Y-%m-%d %H:%M} UTC and was disabled.\n"
                "Fix the receiver, then enable it again with PUT /v3/webhooks/{id} and enabled true.",
            )
