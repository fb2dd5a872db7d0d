"""Opens, clicks and one-click unsubscribes, from the links in delivered mail (no API key).

Tokens are signed (tracking/domain.py), so a forged or altered link is refused without a
lookup, and a click only ever redirects to a link that was in the message. Link scanners are
told apart by the rule set hosted upload downloads share (shared/scanners.py): opens by the request's
own rules (1-4), clicks by all five, `too_soon` included (within seconds of the message's delivery).
A scanner's open or click neither writes an event nor sets opened_at/clicked_at; a scanner's click is
still redirected, and recorded apart as the `ScannerClicks` metric by its rule (`reason`: no address,
no message id), so what gateways fetch is visible without counting as people's clicks.

One-click unsubscribes are account-wide (the address goes on the account's unsubscribes list), except
from a list send's message (Message.list_id): that one only sets the member's `subscribed` false on
that list (audited as list.member_unsubscribed), and the account may still mail the address otherwise.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from postline.audit.domain import Actor
from postline.audit.service import new_audit_entry
from postline.events.domain import Event, EventType, message_event
from postline.events.ports import EventStore
from postline.lists.ports import ListStore
from postline.sending.domain import Message
from postline.sending.ports import MessageStore
from postline.shared.ports import Clock, IdFactory, Meter
from postline.shared.scanners import with_delivery
from postline.suppressions.domain import SuppressionType
from postline.suppressions.ports import Suppressions
from postline.tracking.domain import TrackKind, TrackToken, Visitor, read_token, redirect_target, via_image_proxy


class TrackingService:
    def __init__(
        self,
        *,
        messages: MessageStore,
        events: EventStore,
        suppressions: Suppressions,
        secret: Callable[[], bytes],
        retention_days: Callable[[str], int],
        clock: Clock,
        lists: ListStore | None = None,
        ids: IdFactory | None = None,
        meter: Meter | None = None,
    ) -> None:
        self._meter = meter
        self._lists = lists
        self._ids = ids
        self._messages = messages
        self._events = events
        self._suppressions = suppressions
        self._secret = secret
        self._retention_days = retention_days
        self._clock = clock

    def open(self, token: str, visitor: Visitor) -> None:
        found = self._message(token, TrackKind.OPEN)
        if found is None or visitor.is_bot:
            return
        claims, message = found
        data = {"user_agent": visitor.user_agent, "ip": visitor.ip, "via_proxy": via_image_proxy(visitor.user_agent)}
        self._engage(message, claims.recipient, EventType.OPENED, "opened_at", data)

    def click(self, token: str, visitor: Visitor) -> str | None:
        """The link to redirect to (None for an invalid token); the click is a person's unless a rule of
        the scanner rule set matches (too_soon: within seconds of the message's first delivery), and
        a scanner's is counted apart (the ScannerClicks metric, by its rule)."""
        found = self._message(token, TrackKind.CLICK)
        if found is None:
            return None
        claims, message = found
        # Links are wrapped only when they are valid targets; a token signed before that was checked
        # may carry one that is not (CR/LF in it): refused like a bad token rather than a 500.
        target = redirect_target(claims.url or "")
        if target is None:
            return None
        reason = visitor.scanner_reason(delivered_at=message.delivered_at, now=self._clock.now())
        if reason is None:
            data = {"url": target, "user_agent": visitor.user_agent, "ip": visitor.ip}
            self._engage(message, claims.recipient, EventType.CLICKED, "clicked_at", data)
        elif self._meter is not None:
            self._meter.count("ScannerClicks", reason=reason)
        return with_delivery(target, message.delivered_at)  # a hosted upload's link learns the delivery

    def unsubscribe(self, token: str) -> bool:
        """RFC 8058 one-click: the address goes on the unsubscribes list; False for a bad token."""
        found = self._message(token, TrackKind.UNSUBSCRIBE)
        if found is None:
            return False
        claims, message = found
        now = self._clock.now()
        if message.list_id is not None and self._lists is not None and self._ids is not None:
            return self._leave_list(self._lists, self._ids, message, message.list_id, claims.recipient)
        added = self._suppressions.add(
            message.account_id, claims.recipient, SuppressionType.UNSUBSCRIBES, now, reason="one-click unsubscribe"
        )
        if added:  # a repeated POST is not a second unsubscribe
            self._events.put([self._event(message, claims.recipient, EventType.UNSUBSCRIBED, {}, "unsubscribe")])
        return True

    def _leave_list(self, lists: ListStore, ids: IdFactory, message: Message, list_id: str, recipient: str) -> bool:
        """A list message's unsubscribe: that list's member only; a repeat (or a member already
        unsubscribed, or removed) changes nothing and writes no second event."""
        address = recipient.lower()  # members are stored lowercased
        details = f"{address}: one-click unsubscribe from message {message.id}"
        audit = new_audit_entry(
            ids, Actor.system(), message.account_id, "list.member_unsubscribed", list_id, details, now=self._clock.now()
        )
        if lists.unsubscribe_member(message.account_id, list_id, address, audit):
            data = {"list_id": list_id, "scope": "list"}
            self._events.put([self._event(message, recipient, EventType.UNSUBSCRIBED, data, "unsubscribe")])
        return True

    def _message(self, token: str, kind: TrackKind) -> tuple[TrackToken, Message] | None:
        claims = read_token(token, self._secret(), kind)
        if claims is None:
            return None
        message = self._messages.get(claims.message_id)
        if message is None or message.account_id != claims.account_id:
            return None
        return claims, message

    def _engage(self, message: Message, recipient: str, kind: EventType, field: str, data: dict[str, Any]) -> None:
        now = self._clock.now()
        self._events.put([self._event(message, recipient, kind, data, uuid.uuid4().hex)])
        self._messages.mark_engagement(message.id, field, now)

    def _event(self, message: Message, recipient: str, kind: EventType, data: dict[str, Any], step: str) -> Event:
        details = {k: v for k, v in data.items() if v is not None}
        return message_event(
            message,
            kind,
            recipient,
            self._clock.now(),
            details,
            retention_days=self._retention_days(message.account_id),
            step=step,
        )
