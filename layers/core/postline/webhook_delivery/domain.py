"""Webhook deliveries: the payload, its signatures, the 7-attempt schedule and the failure streak.

The rules are the interface's, as README's Webhooks section writes them. The same schedule drives
the Step Functions workflow in the cloud and the movable clock of the embedded runtime: both only
ask `next_attempt_at`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from pydantic import Field

from postline.events.domain import Event
from postline.shared.base import Model
from postline.webhooks.domain import BasicAuth, BearerAuth, CustomHeadersAuth, EndpointAuth, HmacAuth

# The interface's waits before attempts 2..7, each after the previous attempt: with the extra step
# the last attempt lands about 43 hours after the event, its "up to about 44 hours".
RETRY_DELAYS = (
    timedelta(seconds=30),
    timedelta(minutes=2),
    timedelta(minutes=10),
    timedelta(hours=1),
    timedelta(hours=6),
    timedelta(hours=12),
)
SCHEDULED_ATTEMPTS = len(RETRY_DELAYS) + 1
CUT_SHORT_DELAY = timedelta(hours=24)  # one more attempt when an attempt of the run was cut short
ATTEMPT_TIMEOUT_SECONDS = 30.0
RESEND_WINDOW = timedelta(days=90)  # how far back a delivery can be resent, within the history retention

# Auto-disable (the interface's rule): this many consecutive fully-failed deliveries over at least this long.
DISABLE_AFTER_FAILURES = 20
DISABLE_AFTER_SPAN = timedelta(hours=72)

ED25519_HEADER = "Svc-Signature-Ed25519"
ATTEMPT_HEADER = "X-Webhook-Attempt"
# Receivers deduplicate on these: delivery is at least once.
EVENT_ID_HEADER = "X-Webhook-Event-Id"
DELIVERY_ID_HEADER = "X-Webhook-Delivery-Id"

# Standard Webhooks (standardwebhooks.com), beside the interface's own headers, so a receiver can
# verify with the official libraries. `webhook-id` is the delivery's id: the same on every retry.
STANDARD_ID_HEADER = "webhook-id"
STANDARD_TIMESTAMP_HEADER = "webhook-timestamp"
STANDARD_SIGNATURE_HEADER = "webhook-signature"


class AttemptResult(StrEnum):
    SUCCEEDED = "succeeded"  # any 2xx within the timeout
    RETRYABLE = "retryable"  # 429, 5xx, 3xx, network errors
    CUT_SHORT = "cut_short"  # timed out or the connection dropped mid-answer: retryable, and earns the +24 h step
    REFUSED = "refused"  # a 4xx other than 429: the receiver's final word


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # created, first attempt not yet recorded
    RETRYING = "retrying"  # waiting for its next attempt
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # schedule exhausted or refused; resendable for 90 days
    CANCELLED = "cancelled"  # its endpoint was disabled or deleted before the schedule ended


FINAL_STATUSES = frozenset({DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED, DeliveryStatus.CANCELLED})


def classify(status_code: int | None, *, cut_short: bool = False) -> AttemptResult:
    """An attempt's result from the receiver's status code (None: no answer at all)."""
    if cut_short:
        return AttemptResult.CUT_SHORT
    if status_code is None:
        return AttemptResult.RETRYABLE
    if 200 <= status_code < 300:
        return AttemptResult.SUCCEEDED
    if 400 <= status_code < 500 and status_code != 429:
        return AttemptResult.REFUSED
    return AttemptResult.RETRYABLE


@dataclass(frozen=True)
class HttpAnswer:
    status_code: int | None
    latency_ms: int
    cut_short: bool = False
    error: str | None = None


@dataclass(frozen=True)
class ClientCertificate:
    cert_pem: str
    key_pem: str

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256((self.cert_pem + self.key_pem).encode()).hexdigest()


class TokenError(Exception):
    """The OAuth2 token endpoint did not give a usable token: the attempt fails into the schedule."""


class Attempt(Model):
    number: int = Field(ge=1)
    at: datetime
    result: AttemptResult
    status_code: int | None = None
    latency_ms: int = Field(ge=0)
    error: str | None = None  # what went wrong when there was no usable answer


def next_attempt_at(attempts: list[Attempt]) -> datetime | None:
    """When the next scheduled attempt is due, or None when the delivery is over."""
    if not attempts:
        raise ValueError("the first attempt is immediate; ask after it")
    last = attempts[-1]
    if last.result in (AttemptResult.SUCCEEDED, AttemptResult.REFUSED):
        return None
    done = len(attempts)
    if done < SCHEDULED_ATTEMPTS:
        return last.at + RETRY_DELAYS[done - 1]
    if done == SCHEDULED_ATTEMPTS and any(a.result is AttemptResult.CUT_SHORT for a in attempts):
        return last.at + CUT_SHORT_DELAY
    return None


class Target(Model):
    """Where one event goes: a configured endpoint, or a message's own webhook_url."""

    endpoint_id: str | None  # None for a per-message webhook: Ed25519 only, no endpoint auth
    url: str

    @property
    def key(self) -> str:
        return self.endpoint_id or "url:" + hashlib.sha256(self.url.encode()).hexdigest()[:16]


def delivery_id(event_id: str, target: Target) -> str:
    """Deterministic, so a redelivered stream record finds the delivery it already created."""
    digest = hashlib.sha256(f"{event_id}|{target.key}".encode()).hexdigest()
    return f"whd_{digest[:32]}"


def erasure_mark_id(event_id: str) -> str:
    """The key a data removal marks an erased event at, whatever its targets: a fan-out asks it only
    for an endpoint newer than the event, which has no tombstone of its own (store.py)."""
    digest = hashlib.sha256(f"erased|{event_id}".encode()).hexdigest()
    return f"whd_{digest[:32]}"


def resend_delivery_id(job_id: str, source_id: str) -> str:
    """Deterministic per (resend job, source), so a redelivered job message creates nothing twice."""
    digest = hashlib.sha256(f"resend|{job_id}|{source_id}".encode()).hexdigest()
    return f"whd_{digest[:32]}"


def resend_floor(now: datetime, retention_days: int) -> datetime:
    """The oldest delivery that can be resent: 90 days back, bounded by the plan's history retention."""
    return now - min(RESEND_WINDOW, timedelta(days=retention_days))


class Delivery(Model):
    id: str
    account_id: str
    # None for a per-message webhook (and a bulk job's completion); the store leaves it out then,
    # so it needs its default to be read back.
    endpoint_id: str | None = None
    url: str
    event_id: str
    event_type: str
    message_id: str
    body: str  # the exact bytes every attempt signs and sends
    status: DeliveryStatus = DeliveryStatus.PENDING
    attempts: list[Attempt] = Field(default_factory=list)
    next_attempt_at: datetime | None = None
    manual: bool = False  # a resend: one attempt, never scheduled, never counted against the endpoint
    resent_from: str | None = None  # a resend's source delivery
    created_at: datetime
    expires_at: int  # epoch seconds: the account's history retention

    @property
    def target(self) -> Target:
        return Target(endpoint_id=self.endpoint_id, url=self.url)

    def resent(self, delivery_id_: str, target: Target, now: datetime, expires_at: int) -> Delivery:
        """A manual copy of this delivery to `target`: the same body, one attempt of its own."""
        return Delivery(
            id=delivery_id_,
            account_id=self.account_id,
            endpoint_id=target.endpoint_id,
            url=target.url,
            event_id=self.event_id,
            event_type=self.event_type,
            message_id=self.message_id,
            body=self.body,
            manual=True,
            resent_from=self.id,
            created_at=now,
            expires_at=expires_at,
        )

    def after(self, attempt: Attempt) -> Delivery:
        """This delivery with one more attempt recorded, its status and next time decided."""
        attempts = [*self.attempts, attempt]
        if attempt.result is AttemptResult.SUCCEEDED:
            status, due = DeliveryStatus.SUCCEEDED, None
        elif self.manual:
            status, due = DeliveryStatus.FAILED, None
        else:
            due = next_attempt_at(attempts)
            status = DeliveryStatus.RETRYING if due else DeliveryStatus.FAILED
        return self.model_copy(update={"attempts": attempts, "status": status, "next_attempt_at": due})


def payload(event: Event) -> dict[str, Any]:
    """The JSON a receiver gets, the interface's payload. `variables` are the metadata attached at submission."""
    return {
        "event": str(event.type),
        "message_id": event.message_id,
        "recipient": event.recipient,
        "timestamp": event.timestamp.isoformat().replace("+00:00", "Z"),
        "tags": list(event.tags),
        "headers": dict(event.headers),
        "variables": dict(event.metadata or {}),
        "data": dict(event.data),
    }


def encode_body(document: dict[str, Any]) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def signed_content(timestamp: int, body: str) -> bytes:
    return f"{timestamp}.{body}".encode()


def ed25519_header(timestamp: int, signature: bytes, kid: str) -> str:
    encoded = base64.b64encode(signature).decode()
    return f"t={timestamp},v1={encoded},kid={kid}"


def hmac_header(timestamp: int, body: str, secrets: list[str]) -> str:
    """`t=..,v1=..`, one v1 per valid secret: during a rotation both the new and the old verify."""
    content = signed_content(timestamp, body)
    signatures = [hmac.new(secret.encode(), content, hashlib.sha256).hexdigest() for secret in secrets]
    return ",".join([f"t={timestamp}", *(f"v1={signature}" for signature in signatures)])


def standard_signed_content(delivery_id: str, timestamp: int, body: str) -> bytes:
    return f"{delivery_id}.{timestamp}.{body}".encode()


def standard_webhooks_key(secret: str) -> bytes | None:
    """The HMAC key the Standard Webhooks libraries derive from a `whsec_` secret: the standard
    base64 decoding of what follows the prefix. None for a secret that is not strict base64 (a
    customer's own with `-` or `_`, or of a length the JavaScript library refuses): the official
    verifiers cannot use it, so it gets no `v1` signature. Generated secrets always qualify."""
    encoded = secret.removeprefix("whsec_")
    if len(encoded) % 4:
        return None
    try:
        key = base64.b64decode(encoded, validate=True)
    except ValueError:
        return None
    return key or None


def standard_headers(
    delivery_id: str, timestamp: int, body: str, secrets: list[str], ed25519_signature: bytes
) -> dict[str, str]:
    """`webhook-id`, `webhook-timestamp` and `webhook-signature`: a `v1` (HMAC-SHA256) per valid
    secret of an hmac endpoint, both during a rotation, and `v1a` (Ed25519, the platform key) always."""
    content = standard_signed_content(delivery_id, timestamp, body)
    keys = [key for key in map(standard_webhooks_key, secrets) if key is not None]
    signatures = [f"v1,{base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()}" for key in keys]
    signatures.append(f"v1a,{base64.b64encode(ed25519_signature).decode()}")
    return {
        STANDARD_ID_HEADER: delivery_id,
        STANDARD_TIMESTAMP_HEADER: str(timestamp),
        STANDARD_SIGNATURE_HEADER: " ".join(signatures),
    }


def auto_disables(consecutive_failures: int, failing_since: datetime | None, now: datetime) -> bool:
    """Auto-disable: 20 consecutive fully-failed deliveries whose streak spans at least 72 hours."""
    return (
        consecutive_failures >= DISABLE_AFTER_FAILURES
        and failing_since is not None
        and now - failing_since >= DISABLE_AFTER_SPAN
    )


def static_auth_headers(auth: EndpointAuth | None, timestamp: int, body: str, now: datetime) -> dict[str, str]:
    """The headers an endpoint's auth mode adds to every attempt, but OAuth2's token (fetched) and
    mTLS (not a header)."""
    if isinstance(auth, HmacAuth):
        return {
            auth.header: hmac_header(timestamp, body, auth.valid_secrets(now)),
            "X-Svc-Timestamp": str(timestamp),
            "X-Svc-Key-Id": auth.key_id,
        }
    if isinstance(auth, BearerAuth):
        return {"Authorization": f"Bearer {auth.token}"}
    if isinstance(auth, BasicAuth):
        credentials = base64.b64encode(f"{auth.username}:{auth.password}".encode()).decode()
        return {"Authorization": f"Basic {credentials}"}
    if isinstance(auth, CustomHeadersAuth):
        return dict(auth.headers)
    return {}
