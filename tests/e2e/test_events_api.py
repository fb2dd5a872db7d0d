"""GET /v3/events on the embedded runtime: messages sent with a test key, then their events listed,
filtered and paged over HTTP, and 503 query_timeout."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from postline import wiring
from tests.e2e.sending_support import accepted, iso, message, now, recipient, settle, simulator, unverified_sender
from tests.e2e.support import Api, assert_error, make_account
from tests.support import eventually

pytestmark = pytest.mark.e2e

EVENT_FIELDS = {"id", "type", "message_id", "recipient", "timestamp", "tags", "metadata", "created_at"}


@dataclass
class Sent:
    api: Api
    ann: str  # as sent: mixed case
    bob: str
    invoice: str  # to ann: queued, sent, delivered
    bounce: str  # to the simulator's bounce address: queued, sent, bounced
    welcome: str  # to bob: queued, sent, delivered
    total: int = 9


def _events(api: Api, query: str = "", **params: Any) -> dict[str, Any]:
    response = api.get(f"/v3/events{query}", params=params)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


@pytest.fixture(scope="module")
def sent(runtime: Any) -> Sent:
    owner = unverified_sender(runtime)  # a test key needs no verified domain
    ann, bob = recipient("Ann"), recipient("bob")
    ids = [
        accepted(owner.test.post("/v3/messages", json=message(owner.address, to, **fields)))["id"]
        for to, fields in (
            (ann, {"tags": ["invoice"], "metadata": {"order": "A-1", "region": "eu"}}),
            (simulator("bounce"), {"tags": ["invoice", "retry"], "metadata": {"order": "A-2"}}),
            (bob, {"tags": ["welcome"]}),
        )
    ]
    settle(runtime, *ids)
    result = Sent(owner.test, ann, bob, *ids)

    def listed() -> int:
        count: int = _events(result.api)["total_count"]
        assert count >= result.total, f"{count} of the {result.total} events listed"
        return count

    eventually(listed, 10, waiting_for=f"the {result.total} events to be listed")
    return result


def test_events_list_newest_first_with_the_spec_fields(sent: Sent) -> None:
    page = _events(sent.api, limit=300)
    assert (page["total_count"], page["has_more"], page["next_cursor"]) == (sent.total, False, None)
    items = page["items"]
    assert all(set(item) == EVENT_FIELDS for item in items)
    assert [item["timestamp"] for item in items] == sorted((item["timestamp"] for item in items), reverse=True)
    assert {item["message_id"] for item in items} == {sent.invoice, sent.bounce, sent.welcome}
    delivered = next(i for i in items if i["message_id"] == sent.invoice and i["type"] == "delivered")
    assert delivered["tags"] == ["invoice"]
    assert delivered["recipient"] == sent.ann
    # Send metadata merged with the provider's details; test sends carry test: true.
    assert delivered["metadata"]["order"] == "A-1" and delivered["metadata"]["test"] is True


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"event": "delivered"}, {("invoice", "delivered"), ("welcome", "delivered")}),
        ({"recipient": "ANN"}, {("invoice", "queued"), ("invoice", "sent"), ("invoice", "delivered")}),
        ({"tag": "invoice", "event": "queued"}, {("invoice", "queued"), ("bounce", "queued")}),
        ({"message_id": "bounce"}, {("bounce", "queued"), ("bounce", "sent"), ("bounce", "bounced")}),
        ({"metadata[order]": "A-2"}, {("bounce", "queued"), ("bounce", "sent"), ("bounce", "bounced")}),
        ({"metadata[order]": "A-1", "metadata[region]": "eu", "event": "sent"}, {("invoice", "sent")}),
        ({"tag": "welcome", "recipient": "bob", "event": "bounced"}, set()),
    ],
    ids=["event", "recipient-any-case", "tag+event", "message_id", "metadata", "metadata-2+event", "no-match"],
)
def test_filters_select_exactly_their_events(sent: Sent, query: dict[str, str], expected: set[tuple[str, str]]) -> None:
    names = {sent.invoice: "invoice", sent.bounce: "bounce", sent.welcome: "welcome"}
    params = dict(query)
    if "message_id" in params:
        params["message_id"] = getattr(sent, params["message_id"])
    if "recipient" in params:
        params["recipient"] = (sent.ann if params["recipient"] == "ANN" else sent.bob).upper()
    page = _events(sent.api, **params)
    assert {(names[i["message_id"]], i["type"]) for i in page["items"]} == expected
    assert page["total_count"] == len(expected)


def test_a_bounce_lists_its_reason_and_smtp_response(sent: Sent) -> None:
    (bounced,) = _events(sent.api, event="bounced")["items"]
    assert bounced["metadata"]["order"] == "A-2"
    assert bounced["metadata"]["reason"] and bounced["metadata"]["smtp_response"].startswith("5")


def test_since_and_until_bound_the_window(sent: Sent, runtime: Any) -> None:
    everything = _events(sent.api, limit=300)["items"]
    middle = sorted(item["timestamp"] for item in everything)[3]
    newer = _events(sent.api, since=middle, limit=300)
    older = _events(sent.api, until=middle, limit=300)
    assert newer["total_count"] + older["total_count"] == sent.total + 1  # the event at `middle` is in both
    assert _events(sent.api, since=iso(now(runtime) - timedelta(days=400)))["total_count"] == sent.total  # clamped


def test_paging_with_the_cursor_yields_each_event_once(sent: Sent) -> None:
    seen, cursor, pages = [], None, 0
    while True:
        page = _events(sent.api, limit=3, **({"cursor": cursor} if cursor else {}))
        pages += 1
        assert page["total_count"] == sent.total
        seen += [item["id"] for item in page["items"]]
        cursor = page["next_cursor"]
        assert page["has_more"] is (cursor is not None)
        if cursor is None:
            break
    assert pages == 3  # 9 events, 3 a page
    assert seen == [item["id"] for item in _events(sent.api, limit=300)["items"]]


def test_another_account_sees_none_of_them(sent: Sent, runtime: Any) -> None:
    stranger = Api(runtime.base_url, make_account().test_key)
    for params in ({}, {"message_id": sent.invoice}, {"recipient": sent.ann}):
        page = _events(stranger, **params)
        assert (page["items"], page["total_count"]) == ([], 0)
    cursor = _events(sent.api, limit=1)["next_cursor"]
    assert_error(stranger.get("/v3/events", params={"limit": 1, "cursor": cursor}), 400, "validation_error")


def _tampered(cursor: str) -> str:
    payload, _, mac = cursor.partition(".")
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).replace(b'"total_count":9', b'"total_count":10')
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode() + "." + mac


def test_every_invalid_parameter_is_a_400(sent: Sent) -> None:
    cursor = _events(sent.api, limit=1)["next_cursor"]
    invalid: list[dict[str, Any]] = [
        {"event": "duplicate"},
        {"event": "sparkled"},
        {f"metadata[k{n}]": "v" for n in range(4)},
        {"metadata[no spaces]": "v"},
        {"metadata[" + "k" * 65 + "]": "v"},
        {"metadata[k]": "v" * 201},
        {"since": "yesterday"},
        {"until": "2026-02-30T00:00:00Z"},
        {"since": "2026-03-02T00:00:00Z", "until": "2026-03-01T00:00:00Z"},
        {"limit": 0},
        {"limit": 301},
        {"limit": "ten"},
        {"cursor": "garbage"},
        {"cursor": _tampered(cursor), "limit": 1},
        {"cursor": cursor, "limit": 1, "tag": "invoice"},  # the cursor of another query
    ]
    for params in invalid:
        assert_error(sent.api.get("/v3/events", params=params), 400, "validation_error")
    assert_error(sent.api.get("/v3/events?metadata[k]=a&metadata[k]=b"), 400, "validation_error")
    # The same cursor with its own filters is fine, whatever the limit.
    assert _events(sent.api, cursor=cursor, limit=5)["total_count"] == sent.total


def test_a_query_past_its_time_budget_is_503_query_timeout(sent: Sent, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVENTS_QUERY_BUDGET_MS", "1")
    wiring.reset()
    try:
        response = sent.api.get("/v3/events")
    finally:
        monkeypatch.undo()
        wiring.reset()
    assert_error(response, 503, "query_timeout")
    assert int(response.headers["Retry-After"]) > 0
    assert _events(sent.api)["total_count"] == sent.total
