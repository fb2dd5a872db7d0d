"""What SES reports after it accepted a message: delivery, bounces, complaints, delays.

SES publishes the events of a configuration set to SNS, which feeds the feedback queue. Each
report moves one recipient from the state the hand-over left it in, with its events; the
event time is SES's own, so a report delivered twice makes the same event. A report that finds
its change recorded (the recipient in its state or one past it: its own earlier delivery, whose
worker may have died before the events, or a later report's) changes nothing and has the store
write its event if it is missing (`restore`); so does a report that came after a later one (SNS
and SQS keep no order: a delivery reported after the complaint still has its `delivered`). A
report of an IP pool's configuration set (its `ses:configuration-set` tag) names the pool on its
events (`ip_pool`), so its bounces and complaints count toward the pool's reputation
(metrics/reputation.py) as the sent events did.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from postline.delivery.outcomes import BounceClass, classify_bounce, enhanced_code
from postline.delivery.parcel import MESSAGE_TAG
from postline.delivery.ports import ConfigurationSetPools
from postline.delivery.service import DELIVERY_OUTCOMES, mode_of
from postline.events.domain import Event, EventType, message_event
from postline.sending.domain import Message, RecipientState, message_status
from postline.sending.ports import MessageStore
from postline.shared.ports import Meter
from postline.suppressions.domain import SuppressionSource, SuppressionType
from postline.suppressions.ports import Suppressions

HANDED_OVER = {RecipientState.SENT, RecipientState.DEFERRED}
CONFIGURATION_SET_TAG = "ses:configuration-set"  # SES's own tag on every published event (mail.tags)
_STEP = "ses"  # a report's events' step (event_id): one event of a kind per recipient
# The states a recipient is in once a report's change to `state` is recorded: the state, or one a
# later report moved it to (so the report's events may still be unwritten: see `restore`).
_REACHED = {
    RecipientState.DEFERRED: {
        RecipientState.DEFERRED,
        RecipientState.DELIVERED,
        RecipientState.BOUNCED,
        RecipientState.COMPLAINED,
    },
    RecipientState.DELIVERED: {RecipientState.DELIVERED, RecipientState.BOUNCED, RecipientState.COMPLAINED},
    RecipientState.BOUNCED: {RecipientState.BOUNCED},
    RecipientState.COMPLAINED: {RecipientState.COMPLAINED},
}


class FeedbackService:
    def __init__(
        self,
        *,
        messages: MessageStore,
        suppressions: Suppressions,
        retention_days: Callable[[str], int],
        meter: Meter,
        pools: ConfigurationSetPools | None = None,
    ) -> None:
        self._pools = pools
        self._messages = messages
        self._suppressions = suppressions
        self._retention_days = retention_days
        self._meter = meter

    def apply(self, report: dict[str, Any]) -> int:
        """Applies one SES event notification; returns how many recipients it moved."""
        kind = report.get("eventType") or report.get("notificationType")
        mail = report.get("mail") or {}
        message_id = ((mail.get("tags") or {}).get(MESSAGE_TAG) or [None])[0]
        message = self._messages.get(message_id) if message_id else None
        if message is None:
            return 0  # not one of ours, or long expired
        pool = self._pool(message, mail)
        moved = 0
        for recipient, state, expected, event_type, at, data in _changes(kind, report):
            if recipient not in message.recipients:
                continue
            if pool is not None:
                data = {**data, "ip_pool": pool}
            moved += self._move(message, recipient, state, expected, event_type, at, data)
        return moved

    def _pool(self, message: Message, mail: dict[str, Any]) -> str | None:
        """The IP pool whose configuration set sent the copy (SES's `ses:configuration-set` tag)."""
        names = (mail.get("tags") or {}).get(CONFIGURATION_SET_TAG) or []
        if self._pools is None or not names:
            return None
        return self._pools.pool_of_configuration_set(message.account_id, str(names[0]))

    def _move(
        self,
        message: Message,
        recipient: str,
        state: RecipientState,
        expected: set[RecipientState],
        event_type: EventType,
        at: datetime,
        data: dict[str, Any],
    ) -> int:
        if message.recipients[recipient] not in expected:
            if message.recipients[recipient] in _REACHED[state]:  # recorded: by this report, or one after it
                self._messages.restore(message, recipient, [self._event(message, recipient, event_type, at, data)])
            return 0
        hard_bounce = state is RecipientState.BOUNCED and data.get("bounce_type") == "hard"
        if hard_bounce or state is RecipientState.COMPLAINED:
            kind = SuppressionType.BOUNCES if state is RecipientState.BOUNCED else SuppressionType.COMPLAINTS
            self._suppressions.add(
                message.account_id,
                recipient,
                kind,
                at,
                reason=data.get("reason"),
                source=SuppressionSource.DELIVERY_REPORT,
            )
        message.recipients[recipient] = state
        message.status = message_status(list(message.recipients.values()))
        if state is RecipientState.DELIVERED and message.delivered_at is None:
            message.delivered_at = at
        event = self._event(message, recipient, event_type, at, data)
        if not self._messages.advance(message, recipient, expected, [event], step=_STEP):
            return 0
        self._meter.count(DELIVERY_OUTCOMES, outcome=state.value, mode=mode_of(message))  # the dispatcher's metric
        return 1

    def _event(
        self, message: Message, recipient: str, event_type: EventType, at: datetime, data: dict[str, Any]
    ) -> Event:
        """The report's event: its id from the message, kind and recipient, its time SES's, its data the
        report's, so each delivery of a report makes the same one."""
        if event_type is EventType.DELIVERED:  # latency (metrics): acceptance to the MX's 250
            started = message.send_at or message.created_at
            data = {**data, "total_ms": max(0, int((at - started).total_seconds() * 1000))}
        return message_event(
            message,
            event_type,
            recipient,
            at,
            data,
            retention_days=self._retention_days(message.account_id),
            step=_STEP,
        )


# SES's bounce subtypes for an address on a suppression list (its own or the account's).
_SES_SUPPRESSED = {"Suppressed", "OnAccountSuppressionList"}
_SES_TYPES = {"Permanent": BounceClass.HARD, "Transient": BounceClass.SOFT}


def _bounce_class(body: dict[str, Any], diagnostic: str | None) -> BounceClass:
    """The enhanced status code decides (RFC 3463); without one, SES's own bounce type does."""
    if body.get("bounceSubType") in _SES_SUPPRESSED:
        return BounceClass.SUPPRESSED
    found = classify_bounce(diagnostic)
    if found is BounceClass.UNDETERMINED:
        return _SES_TYPES.get(str(body.get("bounceType")), BounceClass.UNDETERMINED)
    return found


Change = tuple[str, RecipientState, set[RecipientState], EventType, datetime, dict[str, Any]]


def _time(text: str | None, fallback: str) -> datetime:
    return datetime.fromisoformat((text or fallback).replace("Z", "+00:00"))


def _changes(kind: str | None, report: dict[str, Any]) -> list[Change]:
    sent_at = (report.get("mail") or {}).get("timestamp", "1970-01-01T00:00:00Z")
    if kind == "Delivery":
        body = report["delivery"]
        at = _time(body.get("timestamp"), sent_at)
        data = {
            "smtp_response": body.get("smtpResponse"),
            "mx": body.get("reportingMTA"),
            "delivery_ms": body.get("processingTimeMillis"),  # SES: its acceptance to the MX's 250
        }
        return [(r, RecipientState.DELIVERED, HANDED_OVER, EventType.DELIVERED, at, data) for r in body["recipients"]]
    if kind == "Bounce":
        body = report["bounce"]
        at = _time(body.get("timestamp"), sent_at)
        hard = body.get("bounceType") == "Permanent"
        changes: list[Change] = []
        for item in body.get("bouncedRecipients", []):
            diagnostic = item.get("diagnosticCode")
            data = {
                "bounce_type": "hard" if hard else "soft",
                "bounce_class": _bounce_class(body, diagnostic).value,
                "bounce_code": enhanced_code(diagnostic),
                "reason": f"{body.get('bounceType')}/{body.get('bounceSubType')}",
                "smtp_response": diagnostic,
            }
            expected = HANDED_OVER | {RecipientState.DELIVERED}  # an asynchronous bounce can follow delivery
            changes.append((item["emailAddress"], RecipientState.BOUNCED, expected, EventType.BOUNCED, at, data))
        return changes
    if kind == "Complaint":
        body = report["complaint"]
        at = _time(body.get("timestamp"), sent_at)
        data = {"complaint_type": body.get("complaintFeedbackType")}
        expected = HANDED_OVER | {RecipientState.DELIVERED}
        return [
            (item["emailAddress"], RecipientState.COMPLAINED, expected, EventType.COMPLAINED, at, data)
            for item in body.get("complainedRecipients", [])
        ]
    if kind == "DeliveryDelay":
        body = report["deliveryDelay"]
        at = _time(body.get("timestamp"), sent_at)
        return [
            (
                item["emailAddress"],
                RecipientState.DEFERRED,
                {RecipientState.SENT},
                EventType.DELAYED,
                at,
                {"reason": body.get("delayType"), "smtp_response": item.get("diagnosticCode")},
            )
            for item in body.get("delayedRecipients", [])
        ]
    return []
