"""Resending webhook deliveries: POST /v3/webhooks/deliveries/resend, GET .../resend/{id}, the worker.

- The API checks what it can answer at once (ids exist in the account and are within the resend
  window, the destination exists and is enabled), stores a queued job and queues it. All or
  nothing: a request with one bad id creates nothing.
- The worker's job message selects the deliveries (the ids, or the filter over the endpoint's
  month partitions), creates one manual delivery per source with an id derived from (job, source),
  fixes `matched`, then queues one attempt message per manual delivery. A redelivered job message
  creates nothing twice and sends attempts that are no-ops for deliveries already attempted.
- An attempt message makes the delivery's single attempt (WebhookDeliverer.resend_attempt) and
  counts it once; the count that reaches `matched` completes the job. An attempt message that
  keeps failing (e.g. its count keeps meeting other workers' counts) is counted without another
  attempt on its last receives, so that every job completes instead of its message reaching the DLQ.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from postline.accounts.domain import retention_days
from postline.audit.ports import AuditStore
from postline.audit.service import new_audit_entry
from postline.events.domain import retention_expiry
from postline.keys.identity import Principal
from postline.shared.errors import NotFound, ValidationFailed
from postline.shared.ports import Clock, IdFactory
from postline.webhook_delivery.domain import Delivery, DeliveryStatus, Target, resend_delivery_id, resend_floor
from postline.webhook_delivery.history import months_between
from postline.webhook_delivery.ports import DeliveryStore
from postline.webhook_resend.domain import (
    MAX_FILTER_MATCHES,
    ResendJob,
    ResendStatus,
    StoredFilter,
    too_many_matches_message,
)
from postline.webhook_resend.models import ResendJobView, ResendRequest, resend_view
from postline.webhook_resend.ports import ResendJobs, ResendQueue
from postline.webhooks.domain import WebhookEndpoint
from postline.webhooks.ports import WebhookEndpoints

MAX_JOB_RECEIVES = 3  # deliveries of a job message; then the job stops rather than waiting in the DLQ
MAX_ATTEMPT_RECEIVES = 3  # deliveries of an attempt message; then it is counted as it stands (DLQ: 5)
GAVE_UP = "The resend could not be completed; start it again."
NOT_QUEUED = "The resend could not be queued and sent nothing; start it again."
DESTINATION_GONE = "The destination endpoint was deleted or disabled before the resend ran."


class WebhookResendService:
    def __init__(
        self,
        *,
        jobs: ResendJobs,
        queue: ResendQueue,
        deliveries: DeliveryStore,
        endpoints: WebhookEndpoints,
        audit: AuditStore,
        ids: IdFactory,
        retention_days: Callable[[str], int],
        resend_attempt: Callable[[str], Delivery | None],
        clock: Clock,
        max_matches: int = MAX_FILTER_MATCHES,
    ) -> None:
        self._jobs = jobs
        self._queue = queue
        self._deliveries = deliveries
        self._endpoints = endpoints
        self._audit = audit
        self._ids = ids
        self._retention_days = retention_days
        self._resend_attempt = resend_attempt  # WebhookDeliverer.resend_attempt
        self._clock = clock
        self._max_matches = max_matches

    # -- the API -----------------------------------------------------------------------------------

    def start(self, principal: Principal, request: ResendRequest) -> ResendJobView:
        now = self._clock.now()
        account = principal.account
        retention = retention_days(account, now)
        if request.endpoint_id is not None:
            self._enabled(account.id, request.endpoint_id, "endpoint_id: the destination")
        job = ResendJob(
            id=self._ids.new_id("rsd_"), account_id=account.id, endpoint_id=request.endpoint_id, created_at=now
        )
        if request.filter is not None:
            since, until = request.window(now=now, retention_days=retention)
            if request.endpoint_id is None:  # its deliveries go back to it
                self._enabled(account.id, request.filter.endpoint_id, "filter.endpoint_id: the filter's endpoint")
            stored = StoredFilter(
                endpoint_id=request.filter.endpoint_id,
                since=since,
                until=until,
                status=list(dict.fromkeys(request.filter.status)),
                event=list(dict.fromkeys(request.filter.event)) if request.filter.event else None,
            )
            job = job.model_copy(update={"filter": stored})
            details = f"filter on {stored.endpoint_id} since {since.isoformat()}"
        else:
            ids = request.unique_ids()
            self._check_ids(account.id, ids, resend_floor(now, retention), request.endpoint_id is None)
            job = job.model_copy(update={"delivery_ids": ids})
            details = f"{len(ids)} deliveries by id"
        self._jobs.create(job)
        try:
            self._queue.enqueue_job(job)
        except Exception:  # else the job would stay queued forever
            self._jobs.stop(job, NOT_QUEUED, now)
            raise
        details = f"{details} to {request.endpoint_id or 'their own endpoints'}"
        self._audit.record(
            new_audit_entry(
                self._ids, principal.actor(), account.id, "webhook.deliveries_resent", job.id, details, now=now
            )
        )
        return resend_view(job)

    def get(self, principal: Principal, job_id: str) -> ResendJobView:
        job = self._jobs.get(principal.account.id, job_id)
        if job is None:
            raise NotFound(f"No resend job {job_id} in this account.")
        return resend_view(job)

    def _check_ids(self, account_id: str, ids: list[str], floor: datetime, own_targets: bool) -> None:
        found = self._deliveries.get_many(ids)
        unknown = [i for i in ids if i not in found or found[i].account_id != account_id]
        if unknown:
            raise NotFound(f"No webhook delivery {', '.join(unknown)} in this account.")
        too_old = [i for i in ids if found[i].created_at < floor]
        if too_old:
            raise ValidationFailed(
                f"delivery_ids: {', '.join(too_old)} older than the resend window (since {floor.isoformat()})."
            )
        if own_targets:
            self._own_endpoints_enabled(account_id, [found[i] for i in ids])

    def _enabled(self, account_id: str, endpoint_id: str, what: str) -> None:
        endpoint = self._endpoints.get_endpoint(account_id, endpoint_id)
        if endpoint is None:
            raise NotFound(f"No webhook endpoint {endpoint_id} in this account.")
        if not endpoint.enabled:  # lasting until someone enables it: not a 409, which says "retry"
            raise ValidationFailed(
                f"{what} {endpoint_id} is disabled; enable it (PUT /v3/webhooks/{{id}}) or resend elsewhere."
            )

    def _own_endpoints_enabled(self, account_id: str, sources: list[Delivery]) -> None:
        """Deliveries going back to their own endpoints: each endpoint must still exist, enabled."""
        by_endpoint: dict[str, list[str]] = {}
        for source in sources:
            if source.endpoint_id is not None:
                by_endpoint.setdefault(source.endpoint_id, []).append(source.id)
        for endpoint_id, delivery_ids in by_endpoint.items():
            endpoint = self._endpoints.get_endpoint(account_id, endpoint_id)
            if endpoint is None or not endpoint.enabled:
                state = "was deleted" if endpoint is None else "is disabled"
                raise ValidationFailed(
                    f"delivery_ids: {', '.join(delivery_ids)} go back to endpoint {endpoint_id}, which {state}; "
                    "give endpoint_id to resend them elsewhere."
                )

    # -- the worker --------------------------------------------------------------------------------

    def run(self, account_id: str, job_id: str, *, receive_count: int) -> None:
        """Selects the job's deliveries, creates their manual copies and queues their attempts."""
        job = self._jobs.get(account_id, job_id)
        if job is None or job.status is ResendStatus.COMPLETED:
            return
        now = self._clock.now()
        if receive_count > MAX_JOB_RECEIVES:  # earlier runs died without a word
            self._jobs.stop(job, GAVE_UP, now)
            return
        destination = None
        if job.endpoint_id is not None:
            destination = self._endpoints.get_endpoint(account_id, job.endpoint_id)
            if destination is None or not destination.enabled:
                self._jobs.stop(job, DESTINATION_GONE, now)
                return
        sources = self._sources(job)
        if sources is None:
            self._jobs.stop(job, too_many_matches_message(self._max_matches), now)
            return
        if job.status is ResendStatus.RUNNING:
            # Redelivered after the selection was fixed (matched): a filter may select more by now
            # (a delivery then retrying has failed since), but only the resends the first run made
            # belong to the job. Their attempts are queued again; repeats are no-ops.
            derived = [resend_delivery_id(job.id, source.id) for source in sources]
            made = self._deliveries.get_many(derived)
            self._queue.enqueue_attempts(job, [resend_id for resend_id in derived if resend_id in made])
            return
        expires_at = retention_expiry(now, self._retention_days(account_id))
        endpoints: dict[str, WebhookEndpoint | None] = {}
        resends = []
        for source in sources:
            target = self._target(source, destination, endpoints)
            resend = source.resent(resend_delivery_id(job.id, source.id), target, now, expires_at)
            self._deliveries.create(resend)  # False: made by an earlier run of this message
            resends.append(resend.id)
        started = self._jobs.start(job, len(resends))
        if started.status is ResendStatus.COMPLETED:
            return
        if started.matched == 0:
            self._jobs.complete_if_done(started, now)
            return
        self._queue.enqueue_attempts(started, resends)

    def attempt(self, account_id: str, job_id: str, delivery_id: str, *, receive_count: int) -> None:
        """One manual delivery's single attempt, counted once toward its job."""
        job = self._jobs.get(account_id, job_id)
        if job is None or job.status is ResendStatus.COMPLETED:  # every resend counted, or stopped
            return
        if receive_count > MAX_ATTEMPT_RECEIVES:  # no new attempt: a failed one unless it happened
            delivery = self._deliveries.get(delivery_id)
        else:
            delivery = self._resend_attempt(delivery_id)
        succeeded = delivery is not None and delivery.status is DeliveryStatus.SUCCEEDED
        self._jobs.count(job, delivery_id, succeeded=succeeded)
        # Also when counted already: the run that counted it may have died before completing.
        self._jobs.complete_if_done(job, self._clock.now())

    def _sources(self, job: ResendJob) -> list[Delivery] | None:
        """The deliveries to resend, oldest first; None past the cap."""
        if job.delivery_ids is not None:
            found = self._deliveries.get_many(job.delivery_ids)
            return [found[i] for i in job.delivery_ids if i in found and found[i].account_id == job.account_id]
        assert job.filter is not None
        selected = job.filter
        matches: Iterable[Delivery] = self._deliveries.for_endpoint(
            job.account_id,
            selected.endpoint_id,
            months_between(selected.since, selected.until),
            since=selected.since,
            until=selected.until,
            statuses=selected.status,
            event_types=selected.event or (),
        )
        sources = []
        for delivery in matches:
            if delivery.manual:  # earlier resends are not sources: their originals are
                continue
            sources.append(delivery)
            if len(sources) > self._max_matches:
                return None
        return sources[::-1]

    def _target(
        self, source: Delivery, destination: WebhookEndpoint | None, endpoints: dict[str, WebhookEndpoint | None]
    ) -> Target:
        """Where a resend goes: the destination, else the source's endpoint at its current URL, else
        the message's own webhook_url. An endpoint gone since the request cancels its resend."""
        if destination is not None:
            return Target(endpoint_id=destination.id, url=destination.url)
        if source.endpoint_id is None:
            return source.target
        if source.endpoint_id not in endpoints:
            endpoints[source.endpoint_id] = self._endpoints.get_endpoint(source.account_id, source.endpoint_id)
        endpoint = endpoints[source.endpoint_id]
        return Target(endpoint_id=source.endpoint_id, url=endpoint.url if endpoint else source.url)
