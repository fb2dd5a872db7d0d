"""A click on a wrapped link, through TrackingService: the scanner rule set uploads share, with the
message's delivery time (`too_soon`), decides a person's click from a scanner's; a scanner's click is
still redirected and counted apart (ScannerClicks, by its rule), never an event or clicked_at."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from postline.events.domain import Event
from postline.sending.domain import Message
from postline.shared.scanners import TOO_SOON
from postline.tracking.domain import LinkMaker, Visitor
from postline.tracking.service import TrackingService
from tests.fakes.sending import InMemoryMessages
from tests.fakes.shared import DEFAULT_START, FixedClock, RecordingMeter
from tests.fakes.suppressions import InMemorySuppressions

SECRET = b"s" * 32
BROWSER = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
)
PERSON = Visitor(user_agent=BROWSER, purpose=None, ip="198.51.100.7")


class RecordedEvents:
    """The one EventStore method clicks use."""

    def __init__(self) -> None:
        self.items: list[Event] = []

    def put(self, events: list[Event]) -> None:
        self.items.extend(events)


def _setup(
    delivered: bool = True,
) -> tuple[TrackingService, InMemoryMessages, RecordedEvents, RecordingMeter, FixedClock, str]:
    clock = FixedClock()
    messages = InMemoryMessages()
    message = Message.model_validate(
        {
            "id": "msg_1", "account_id": "acct_1", "key_id": "key_1", "test": False,
            "from": "shop@acme.example", "to": ["ann@example.com"], "subject": "Menu",
            "status": "delivered" if delivered else "queued",
            "recipients": {"ann@example.com": "delivered" if delivered else "queued"},
            "created_at": DEFAULT_START, "delivered_at": DEFAULT_START if delivered else None,
        }
    )  # fmt: skip
    messages.create([message], [], [])
    events, meter = RecordedEvents(), RecordingMeter()
    service = TrackingService(
        messages=messages, events=events, suppressions=InMemorySuppressions(), secret=lambda: SECRET,
        retention_days=lambda _: 30, clock=clock, meter=meter,
    )  # fmt: skip
    url = LinkMaker("https://api.postline.test", SECRET).click_url("acct_1", "msg_1", "ann@example.com",
                                                                   "https://acme.example/menu")  # fmt: skip
    return service, messages, events, meter, clock, url.rsplit("/", 1)[1]


def _scanner_clicks(meter: RecordingMeter) -> dict[str, int]:
    return {dict(dims)["reason"]: n for dims, n in meter.of("ScannerClicks").items()}


def test_a_click_within_seconds_of_delivery_is_a_scanners_redirected_and_counted_apart() -> None:
    service, messages, events, meter, clock, token = _setup()
    clock.advance(TOO_SOON.total_seconds() - 1)
    assert service.click(token, PERSON) == "https://acme.example/menu"  # still redirected
    assert events.items == []
    assert (stored := messages.get("msg_1")) is not None and stored.clicked_at is None
    assert _scanner_clicks(meter) == {"too_soon": 1}


def test_the_same_click_after_the_window_is_a_persons() -> None:
    service, messages, events, meter, clock, token = _setup()
    clock.advance(TOO_SOON.total_seconds())
    assert service.click(token, PERSON) == "https://acme.example/menu"
    assert [(e.type, e.recipient, e.data["url"]) for e in events.items] == [
        ("clicked", "ann@example.com", "https://acme.example/menu")]  # fmt: skip
    assert (stored := messages.get("msg_1")) is not None and stored.clicked_at == clock.now()
    assert _scanner_clicks(meter) == {}


def test_the_request_rules_come_first_and_each_scanner_click_is_counted_by_its_rule() -> None:
    service, _, events, meter, clock, token = _setup()
    clock.advance(60)
    visitors: list[Any] = [
        Visitor(user_agent=BROWSER, purpose=None, ip=None, method="HEAD"),
        Visitor(user_agent=BROWSER, purpose="prefetch", ip=None),
        Visitor(user_agent="Mozilla/5.0 (compatible; Mimecast)", purpose=None, ip=None),
        Visitor(user_agent=BROWSER, purpose=None, ip="205.139.110.20"),
    ]
    for visitor in visitors:
        assert service.click(token, visitor) == "https://acme.example/menu"
    assert events.items == []
    assert _scanner_clicks(meter) == {"head": 1, "purpose": 1, "user_agent": 1, "network": 1}


def test_a_message_not_yet_delivered_has_no_timing_rule() -> None:
    service, _, events, meter, _, token = _setup(delivered=False)
    assert service.click(token, PERSON) == "https://acme.example/menu"
    assert len(events.items) == 1 and _scanner_clicks(meter) == {}


def test_a_delivery_long_ago_is_no_reason() -> None:
    service, _, events, _, clock, token = _setup()
    clock.advance(timedelta(days=3).total_seconds())
    service.click(token, PERSON)
    assert len(events.items) == 1
