"""A recorded step's events, packed small into the message item they belong to.

The dispatcher's record of a hand-over and a feedback report's state change are one conditional
UpdateItem of the message item, then the events' puts (no transaction: a transaction bills every
item twice). The update stores the step's events in the message (`pack`), so whoever finds the step
recorded and cannot know whether its events were written (a redelivered job, a retry of a write
whose reply was lost, a repeated report) writes them again from there (`unpack`): the same ids,
times and fields, so the same items (a put that changes nothing writes no stream record).

What an event copies from its message (account, tags, metadata, headers, webhook_url, domain,
template) is not stored again; ids that `event_id` derives from the step, times as microseconds
after the first, the data every event shares and the expiry are stored once. `pack` checks that
its result gives back the very events (equal models), and stores the events whole otherwise.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from postline.events.domain import Event, EventType, MessageFields, copied_event, event_id
from postline.shared.dynamo import from_attrs, to_value

_TICK = timedelta(microseconds=1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # times are kept as microseconds since (in UTC)


def pack(message: MessageFields, recipient: str | None, events: list[Event], *, step: int | str) -> dict[str, Any]:
    """The events as a small JSON value (keys: r recipient, s step, t the first event's time in
    microseconds since 1970 UTC, x expiry, d shared data, e the events: k type, o microseconds after
    the first, d own data; f the events whole when the short form would not give them back exactly)."""
    named: dict[str, Any] = {"s": step} if recipient is None else {"s": step, "r": recipient}
    if not events:
        return {**named, "e": []}
    packed = {**named, **_short(message, recipient, events, step)}
    # The models compared (2 == 2.0, as in the table): a difference only stores the events whole.
    if unpack(message, _through_table(packed)) == events:
        return packed
    return {**named, "f": [event.model_dump(mode="json") for event in events]}


def unpack(message: MessageFields, packed: dict[str, Any]) -> list[Event]:
    """The events `pack` stored (read back through the table: numbers may come back as Decimal)."""
    if "f" in packed:
        return [Event.model_validate(dumped) for dumped in packed["f"]]
    if not packed.get("e"):
        return []
    recipient, step = packed.get("r"), _number(packed["s"])
    first = _EPOCH + _TICK * int(packed["t"])
    shared = dict(packed.get("d") or {})
    events = []
    for entry in packed["e"]:
        kind = EventType(entry["k"])
        at = first + _TICK * int(entry.get("o", 0))
        events.append(
            copied_event(
                message,
                kind,
                recipient,
                at,
                {**shared, **(entry.get("d") or {})},
                ident=entry.get("i") or event_id(message.id, kind, recipient, step),
                created_at=datetime.fromisoformat(entry["c"]) if "c" in entry else at,
                expires_at=int(entry.get("x", packed["x"])),
            )
        )
    return events


def event_ids(packed: dict[str, Any] | None, message: MessageFields) -> list[str]:
    return [event.id for event in unpack(message, packed)] if packed else []


def _short(message: MessageFields, recipient: str | None, events: list[Event], step: int | str) -> dict[str, Any]:
    first = events[0].timestamp
    expiry = events[0].expires_at
    shared = {
        name: value
        for name, value in events[0].data.items()
        if all(name in event.data and event.data[name] == value for event in events[1:])
    }
    entries = []
    for event in events:
        entry: dict[str, Any] = {"k": event.type.value}
        if event.timestamp != first:
            entry["o"] = (event.timestamp - first) // _TICK
        own = {name: value for name, value in event.data.items() if name not in shared}
        if own:
            entry["d"] = own
        if event.id != event_id(message.id, event.type, recipient, step):
            entry["i"] = event.id
        if event.created_at != event.timestamp:
            entry["c"] = event.created_at.isoformat()
        if event.expires_at != expiry:
            entry["x"] = event.expires_at
        entries.append(entry)
    packed: dict[str, Any] = {"t": (first - _EPOCH) // _TICK, "x": expiry, "e": entries}
    if shared:
        packed["d"] = shared
    return packed


def _number(step: Any) -> int | str:
    """A step as the event ids were made with it: an attempt number (read back as a Decimal) or a word."""
    return step if isinstance(step, str) else int(step)


def _through_table(value: dict[str, Any]) -> dict[str, Any]:
    """`value` as an update stores it and a read gives it back."""
    found: dict[str, Any] = from_attrs({"v": to_value(value)})["v"]
    return found
