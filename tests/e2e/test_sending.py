"""Sending over HTTP against the embedded runtime: POST /v3/messages and messages.batch, the
delivered email, test keys and the simulator, validation, Idempotency-Key, scheduled sends and
their cancellation, rejected-before-send, quotas and the operator's hold."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import dkim
import pytest
import requests

from postline import wiring
from postline.config import Idempotency
from postline.sending.domain import MAX_ATTACHMENT_BYTES
from postline.wiring import suppressions
from tests.e2e.sending_support import (
    accepted,
    body_of,
    drain,
    events_of,
    has_types,
    iso,
    mail_for,
    mail_to,
    message,
    now,
    recipient,
    settle,
    simulator,
    statuses,
    types_of,
    unverified_sender,
    verified_sender,
)
from tests.e2e.support import Api, assert_error, run_cli

pytestmark = pytest.mark.e2e

ACCEPTED_FIELDS = {"id", "status", "created_at", "from", "to", "tags", "headers"}
MESSAGE_FIELDS = {
    "id",
    "status",
    "from",
    "to",
    "subject",
    "tags",
    "headers",
    "created_at",
    "send_at",
    "delivered_at",
    "opened_at",
    "clicked_at",
    "content_check",
}
SCHEDULED_FIELDS = {"id", "from", "to", "subject", "tags", "send_at", "created_at"}
LINK = "https://example.com/welcome?step=1&amp;ref=mail"  # as written in html: &amp; is an escaped &
HTML = f'<html><body><p>Welcome aboard.</p><p><a href="{LINK}">Get started</a></p></body></html>'


def dev_sender(runtime: Any) -> str:
    return f"Postline Dev <hello@{runtime.dev['sending_domain']['domain']}>"


# -- a live send, end to end ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def delivered(runtime: Any) -> dict[str, Any]:
    """One live send from the dev account to a To and a Bcc recipient, delivered to the mail sink."""
    api = Api(runtime.base_url, runtime.dev["keys"]["live"])
    to, bcc = recipient("alice"), recipient("hidden")
    body = message(
        dev_sender(runtime),
        to,
        bcc=[bcc],
        subject="Welcome to Postline",
        html=HTML,
        text="Welcome aboard. https://example.com/welcome",
        tags=["welcome", "onboarding"],
        headers={"X-Campaign": "spring-2026", "X-Customer-Id": "cus_42"},
        metadata={"user_id": "u-1", "plan": "trial"},
    )
    response = api.post("/v3/messages", json=body)
    sent = accepted(response)
    settle(runtime, sent["id"])
    return {"api": api, "request": body, "response": sent, "to": to, "bcc": bcc}


def test_a_live_send_answers_202_with_the_accepted_shape(delivered: dict[str, Any], runtime: Any) -> None:
    sent, request = delivered["response"], delivered["request"]
    assert set(sent) == ACCEPTED_FIELDS
    assert sent["id"].startswith("msg_") and sent["status"] == "queued"
    assert (sent["from"], sent["to"], sent["tags"], sent["headers"]) == (
        request["from"],
        request["to"],
        request["tags"],
        request["headers"],
    )
    created = datetime.fromisoformat(sent["created_at"])
    assert created.tzinfo is not None and abs(created - now(runtime)) < timedelta(minutes=10)


def test_the_message_reads_delivered_with_delivered_at(delivered: dict[str, Any]) -> None:
    sent = delivered["response"]
    response = delivered["api"].get(f"/v3/messages/{sent['id']}")
    assert response.status_code == 200, response.text
    shown = response.json()
    assert set(shown) == MESSAGE_FIELDS
    assert shown["status"] == "delivered"
    assert shown["subject"] == "Welcome to Postline"
    assert (shown["to"], shown["tags"], shown["headers"]) == (sent["to"], sent["tags"], sent["headers"])
    assert shown["created_at"] == sent["created_at"] and shown["send_at"] is None
    assert datetime.fromisoformat(shown["delivered_at"]) >= datetime.fromisoformat(shown["created_at"])
    assert shown["opened_at"] is None and shown["clicked_at"] is None


def test_events_are_queued_sent_delivered_in_order_with_tags_and_metadata(delivered: dict[str, Any]) -> None:
    to, bcc = delivered["to"], delivered["bcc"]
    found = events_of(
        delivered["response"]["id"],
        until=lambda evs: types_of(evs, to)[-1:] == ["delivered"] and types_of(evs, bcc)[-1:] == ["delivered"],
    )
    for address in (to, bcc):
        mine = [e for e in found if e.recipient == address]
        assert [e.type.value for e in mine] == ["queued", "sent", "delivered"]
        assert [e.timestamp for e in mine] == sorted(e.timestamp for e in mine)
    for event in found:
        assert event.tags == ["welcome", "onboarding"]
        assert event.metadata == {"user_id": "u-1", "plan": "trial"}
        assert event.headers == {"X-Campaign": "spring-2026", "X-Customer-Id": "cus_42"}
        assert "test" not in event.data  # data.test: absent for real deliveries
        assert event.id.startswith("evt_")
    delivered_event = next(e for e in found if e.recipient == to and e.type.value == "delivered")
    assert delivered_event.data["smtp_response"].startswith("250")


def test_the_email_carries_custom_headers_and_one_click_unsubscribe(delivered: dict[str, Any], runtime: Any) -> None:
    copies = mail_for(runtime, delivered["response"]["id"])
    assert sorted(tuple(c["rcpt_tos"]) for c in copies) == sorted([(delivered["to"],), (delivered["bcc"],)])
    for copy in copies:
        headers = copy["headers"]
        assert headers["X-Campaign"] == "spring-2026" and headers["X-Customer-Id"] == "cus_42"
        assert headers["Subject"] == "Welcome to Postline"
        assert headers["From"] == delivered["request"]["from"]
        assert headers["To"] == delivered["to"]  # the Bcc recipient's copy shows the To as well
        assert re.fullmatch(r"<https?://[^>\s]+/v3/track/unsubscribe/[\w.-]+>", headers["List-Unsubscribe"])
        assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        # The envelope sender is on the domain's return-path subdomain, where its SPF and bounce MX are.
        message_id = delivered["response"]["id"]
        assert copy["mail_from"] == f"bounces+{message_id}@pm-bounces.{runtime.dev['sending_domain']['domain']}"
    # Each recipient gets an unsubscribe link of their own.
    assert len({c["headers"]["List-Unsubscribe"] for c in copies}) == 2


def test_bcc_never_appears_in_any_copy(delivered: dict[str, Any], runtime: Any) -> None:
    for copy in mail_for(runtime, delivered["response"]["id"]):
        assert "bcc" not in {name.lower() for name in copy["headers"]}
        header_block = copy["raw"].split("\r\n\r\n", 1)[0]
        assert delivered["bcc"] not in header_block


def test_the_email_is_dkim_signed_by_the_sending_domain(delivered: dict[str, Any], runtime: Any) -> None:
    domain = runtime.dev["sending_domain"]
    (copy,) = mail_to(runtime, delivered["to"])
    signature = copy["headers"]["DKIM-Signature"]
    assert f"d={domain['domain']}" in signature and f"s={domain['dkim_selector']}" in signature

    def dns(name: bytes, timeout: int = 5) -> bytes:
        assert name.decode().rstrip(".") == domain["dkim_record"]
        return str(domain["dkim_txt"]).encode()

    assert dkim.verify(copy["raw"].encode(), dnsfunc=dns)


def test_links_are_wrapped_and_an_open_pixel_added(delivered: dict[str, Any], runtime: Any) -> None:
    (copy,) = mail_to(runtime, delivered["to"])
    html = body_of(copy, "html")
    assert html is not None
    hrefs = re.findall(r'href="([^"]+)"', html)
    assert len(hrefs) == 1 and hrefs[0].startswith(f"{runtime.base_url}/v3/track/click/")
    assert "example.com/welcome" not in html  # the original link only lives in the signed token
    pixels = re.findall(r'<img src="([^"]+)" width="1" height="1"', html)
    assert len(pixels) == 1 and pixels[0].startswith(f"{runtime.base_url}/v3/track/open/")
    assert html.index(pixels[0]) < html.index("</body>")
    assert body_of(copy, "plain") == "Welcome aboard. https://example.com/welcome\n"


def test_tracking_off_leaves_the_html_as_sent(api: Api, runtime: Any) -> None:
    to = recipient()
    sent = accepted(
        api.post(
            "/v3/messages",
            json=message(dev_sender(runtime), to, html=HTML, track_opens=False, track_clicks=False),
        )
    )
    settle(runtime, sent["id"])
    (copy,) = mail_for(runtime, sent["id"])
    html = body_of(copy, "html")
    assert html is not None and html.rstrip("\n") == HTML
    assert "List-Unsubscribe" in copy["headers"]  # unsubscribing is not tracking: it stays


def test_only_opens_off_still_wraps_links(api: Api, runtime: Any) -> None:
    sent = accepted(api.post("/v3/messages", json=message(dev_sender(runtime), html=HTML, track_opens=False)))
    settle(runtime, sent["id"])
    (copy,) = mail_for(runtime, sent["id"])
    html = body_of(copy, "html") or ""
    assert "/v3/track/click/" in html and "/v3/track/open/" not in html


# -- test keys and the simulator ------------------------------------------------------------------


def test_test_key_sends_never_reach_the_mailbox_and_are_marked_test(runtime: Any) -> None:
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    to = recipient("real-looking")
    sent = accepted(test_api.post("/v3/messages", json=message(dev_sender(runtime), to, html=HTML)))
    settle(runtime, sent["id"])
    assert test_api.get(f"/v3/messages/{sent['id']}").json()["status"] == "delivered"
    found = events_of(sent["id"], until=has_types("queued", "sent", "delivered"))
    assert types_of(found) == ["queued", "sent", "delivered"]
    assert all(event.data.get("test") is True for event in found)
    assert mail_for(runtime, sent["id"]) == [] and mail_to(runtime, to) == []


@pytest.mark.parametrize(
    ("outcome", "status", "types", "details"),
    [
        ("delivered", "delivered", ["queued", "sent", "delivered"], {}),
        ("bounce", "bounced", ["queued", "sent", "bounced"], {"bounce_type": "hard", "bounce_class": "hard"}),
        ("soft_bounce", "bounced", ["queued", "sent", "bounced"], {"bounce_type": "soft", "bounce_class": "soft"}),
        ("complaint", "complained", ["queued", "sent", "delivered", "complained"], {}),
    ],
)
def test_simulator_addresses_decide_the_outcome(
    runtime: Any, outcome: str, status: str, types: list[str], details: dict[str, str]
) -> None:
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    sent = accepted(test_api.post("/v3/messages", json=message(dev_sender(runtime), simulator(outcome))))
    assert settle(runtime, sent["id"]) == {sent["id"]: status}
    found = events_of(sent["id"], until=lambda evs: len(evs) >= len(types))
    assert types_of(found) == types
    assert all(event.data.get("test") is True for event in found)
    last = found[-1]
    for name, value in details.items():
        assert last.data[name] == value
    if status == "bounced":
        assert last.data["smtp_response"][:1] == "5" and last.data["reason"]


def test_a_delayed_recipient_is_retried_and_then_delivered(runtime: Any) -> None:
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    sent = accepted(test_api.post("/v3/messages", json=message(dev_sender(runtime), simulator("delayed"))))
    # The first attempt only: its retry is due 60 s later, which settle() never reaches here.
    settle(runtime, sent["id"], wanted={"deferred"})
    assert test_api.get(f"/v3/messages/{sent['id']}").json()["status"] == "deferred"
    found = events_of(sent["id"], until=has_types("queued", "delayed"))
    assert types_of(found) == ["queued", "delayed"]
    delayed = found[-1]
    assert delayed.data["retry_count"] == 1 and delayed.data["test"] is True
    retry_at = datetime.fromisoformat(delayed.data["next_retry_at"])
    assert retry_at - delayed.timestamp == timedelta(seconds=60)

    runtime.advance(61)
    assert settle(runtime, sent["id"]) == {sent["id"]: "delivered"}
    found = events_of(sent["id"], until=has_types("queued", "delayed", "sent", "delivered"))
    assert types_of(found) == ["queued", "delayed", "sent", "delivered"]


# -- validation -----------------------------------------------------------------------------------


def test_malformed_json_is_invalid_json(api: Api) -> None:
    response = api.post(
        "/v3/messages", data='{"from": "a@postline.test", ', headers={"Content-Type": "application/json"}
    )
    assert_error(response, 400, "invalid_json")


@pytest.mark.parametrize(
    "change",
    [
        {"headers": {"Reply-To": "someone@example.com"}},
        {"headers": {"Subject": "forged"}},
        {"headers": {"X-Postline-Message-Id": "msg_forged"}},
        {"headers": {"X-Multi": "line\r\nBcc: victim@example.com"}},
        {"to": ["not-an-address"]},
        {"to": ["two@example.com, addresses@example.com"]},
        {"to": []},
        {"cc": ["bad@@example.com"]},
        {"from": "nobody"},
        {"subject": None},
        {"subject": ""},
        {"text": None},
        {"tags": [f"t{i}" for i in range(11)]},
        {"metadata": {"bad key!": "x"}},
        {"send_at": "2030-01-01T00:00:00"},
        {"surprise": True},
    ],
    ids=[
        "non-x-header",
        "subject-header",
        "reserved-x-header",
        "header-injection",
        "bad-to",
        "two-in-one",
        "empty-to",
        "bad-cc",
        "bad-from",
        "missing-subject",
        "empty-subject",
        "no-body",
        "too-many-tags",
        "bad-metadata-key",
        "naive-send-at",
        "unknown-field",
    ],
)
def test_invalid_sends_are_validation_errors(api: Api, runtime: Any, change: dict[str, Any]) -> None:
    body = {**message(dev_sender(runtime)), **change}
    body = {k: v for k, v in body.items() if v is not None}
    assert_error(api.post("/v3/messages", json=body), 400, "validation_error")


def test_a_body_that_is_not_an_object_is_a_validation_error(api: Api) -> None:
    assert_error(api.post("/v3/messages", json=["a@example.com"]), 400, "validation_error")


def test_an_unknown_template_is_template_not_found(api: Api, runtime: Any) -> None:
    body = {**message(dev_sender(runtime), template_id="tpl_does_not_exist")}
    del body["subject"], body["text"]
    assert_error(api.post("/v3/messages", json=body), 400, "template_not_found")


def test_an_inactive_template_is_template_not_found(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    created = owner.live.post(
        "/v3/templates", json={"name": "off", "subject": "Hi", "html": "<p>x</p>", "active": False}
    )
    assert created.status_code == 201, created.text
    body = {"from": owner.address, "to": [recipient()], "template_id": created.json()["id"]}
    assert_error(owner.live.post("/v3/messages", json=body), 400, "template_not_found")
    assert owner.live.patch(f"/v3/templates/{created.json()['id']}", json={"active": True}).status_code == 200
    accepted(owner.live.post("/v3/messages", json=body))


def test_another_accounts_template_is_template_not_found(api: Api, runtime: Any) -> None:
    other = unverified_sender(runtime)
    theirs = other.live.post("/v3/templates", json={"name": "theirs", "subject": "Hi", "text_body": "x"}).json()["id"]
    body = {"from": dev_sender(runtime), "to": [recipient()], "template_id": theirs}
    assert_error(api.post("/v3/messages", json=body), 400, "template_not_found")


def _attachment(size: int, name: str = "file.bin") -> dict[str, str]:
    return {"filename": name, "content": base64.b64encode(b"\0" * size).decode(), "content_type": "application/pdf"}


def test_attachments_over_7_mib_decoded_are_too_large(runtime: Any) -> None:
    owner = unverified_sender(runtime)  # its sends are rejected before send: nothing is delivered
    over = message(owner.address, attachments=[_attachment(MAX_ATTACHMENT_BYTES + 1)])
    assert_error(owner.live.post("/v3/messages", json=over), 400, "attachment_too_large")
    half = MAX_ATTACHMENT_BYTES // 2
    exactly = message(owner.address, attachments=[_attachment(half, "a.pdf"), _attachment(half, "b.pdf")])
    accepted(owner.live.post("/v3/messages", json=exactly))


def test_attachments_count_together_against_the_limit(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    half = MAX_ATTACHMENT_BYTES // 2
    over = message(owner.address, attachments=[_attachment(half, "a.pdf"), _attachment(half + 1, "b.pdf")])
    assert_error(owner.live.post("/v3/messages", json=over), 400, "attachment_too_large")


def test_invalid_base64_in_an_attachment_is_a_validation_error(api: Api, runtime: Any) -> None:
    body = message(dev_sender(runtime), attachments=[{"filename": "x.bin", "content": "not base64!"}])
    assert_error(api.post("/v3/messages", json=body), 400, "validation_error")


@pytest.mark.parametrize(
    "counts",
    [{"to": 1001}, {"to": 600, "cc": 401}, {"cc": 1001, "to": 1}, {"to": 400, "cc": 400, "bcc": 201}],
    ids=["to-1001", "to-600-cc-401", "cc-1001", "combined-1001"],
)
def test_too_many_recipients_is_recipient_limit_exceeded(api: Api, runtime: Any, counts: dict[str, int]) -> None:
    fields = {name: [f"{name}{i}@example.com" for i in range(count)] for name, count in counts.items()}
    assert_error(api.post("/v3/messages", json=message(dev_sender(runtime), **fields)), 400, "recipient_limit_exceeded")


def test_another_accounts_message_is_not_found(api: Api, runtime: Any) -> None:
    other = unverified_sender(runtime)
    theirs = accepted(other.live.post("/v3/messages", json=message(other.address)))["id"]
    assert_error(api.get(f"/v3/messages/{theirs}"), 404, "not_found")
    assert_error(api.delete(f"/v3/messages/{theirs}"), 404, "not_found")
    assert other.live.get(f"/v3/messages/{theirs}").status_code == 200
    assert_error(api.get("/v3/messages/msg_nothing_here"), 404, "not_found")


# -- Idempotency-Key ------------------------------------------------------------------------------


def _usage_emails(api: Api) -> int:
    response = api.get("/v3/usage")
    assert response.status_code == 200, response.text
    used: int = response.json()["emails"]["used"]
    return used


def test_a_replay_after_the_clock_moved_ahead_still_finds_its_record(runtime: Any) -> None:
    """Idempotency records expire on the runtime's clock, the one the emulator sweeps TTLs by
    (devtools/local/powertools_clock.py): on the wall clock, a record written after the clock moved
    two days ahead was swept at the next move and the replay sent again."""
    owner = verified_sender(runtime)
    body = message(owner.address, recipient(), tags=["idem"])
    headers = {"Idempotency-Key": f"moved-{time.time_ns()}"}
    moved = runtime.advance(2 * 86_400)  # past the records' 24 hours on the wall clock
    first = owner.live.post("/v3/messages", json=body, headers=headers)
    assert first.status_code == 202, first.text
    table = wiring.settings(Idempotency).table
    items = wiring.client("dynamodb").scan(TableName=table)["Items"]
    assert max(int(item["expiration"]["N"]) for item in items) > moved.timestamp()  # not swept at the next move
    runtime.advance(120)
    second = owner.live.post("/v3/messages", json=body, headers=headers)
    assert second.status_code == 202 and second.json() == first.json(), second.text


def test_a_replay_returns_the_first_result_and_sends_once(runtime: Any) -> None:
    owner = verified_sender(runtime)
    to = recipient()
    body = message(owner.address, to, tags=["idem"])
    headers = {"Idempotency-Key": "order-1001-confirmation"}
    first = owner.live.post("/v3/messages", json=body, headers=headers)
    second = owner.live.post("/v3/messages", json=body, headers=headers)
    assert first.status_code == second.status_code == 202, (first.text, second.text)
    assert second.json() == first.json()
    settle(runtime, first.json()["id"])
    assert len(mail_to(runtime, to)) == 1
    assert _usage_emails(owner.live) == 1
    assert types_of(events_of(first.json()["id"], until=has_types("delivered"))) == ["queued", "sent", "delivered"]


def test_the_same_key_with_another_body_is_a_validation_error(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    headers = {"Idempotency-Key": "reused-key"}
    first = accepted(owner.live.post("/v3/messages", json=message(owner.address, subject="One"), headers=headers))
    response = owner.live.post("/v3/messages", json=message(owner.address, subject="Two"), headers=headers)
    assert_error(response, 400, "validation_error")
    assert owner.live.get(f"/v3/messages/{first['id']}").json()["subject"] == "One"


def test_idempotency_keys_are_per_account(runtime: Any) -> None:
    one, two = unverified_sender(runtime), unverified_sender(runtime)
    headers = {"Idempotency-Key": "shared-key"}
    first = accepted(one.live.post("/v3/messages", json=message(one.address), headers=headers))
    second = accepted(two.live.post("/v3/messages", json=message(two.address), headers=headers))
    assert first["id"] != second["id"]


def test_idempotency_keys_are_per_environment_so_a_live_send_after_a_test_one_goes_out(runtime: Any) -> None:
    # Stripe's rule: a key used in test mode means nothing in live mode, even with the same body.
    owner = verified_sender(runtime)
    to = recipient()
    body = message(owner.address, to)
    headers = {"Idempotency-Key": "checkout-42"}
    simulated = accepted(owner.test.post("/v3/messages", json=body, headers=headers))
    live = accepted(owner.live.post("/v3/messages", json=body, headers=headers))
    assert live["id"] != simulated["id"]
    assert owner.live.post("/v3/messages", json=body, headers=headers).json() == live  # each replays its own
    settle(runtime, live["id"])
    assert len(mail_to(runtime, to)) == 1


def test_an_invalid_idempotency_key_is_a_validation_error(api: Api, runtime: Any) -> None:
    response = api.post("/v3/messages", json=message(dev_sender(runtime)), headers={"Idempotency-Key": "k" * 256})
    assert_error(response, 400, "validation_error")


def _idempotency_record(
    account_id: str, key: str, body: dict[str, Any], at: float, scope: str = "messages"
) -> dict[str, Any]:
    """An INPROGRESS record of a live key as Powertools writes it (persistence/dynamodb.py, base.py) at
    `at` (epoch seconds on the runtime's clock, which Powertools reads there: powertools_clock.py): the
    key is "postline.<scope>#" + sha256 of the JSON of [account, env, key]; the payload hash of the body."""

    def digest(data: Any) -> str:
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    wall = at
    return {
        "id": {"S": f"postline.{scope}#{digest([account_id, 'live', key])}"},
        "expiration": {"N": str(int(wall) + 3600)},
        "in_progress_expiration": {"N": str(int(wall * 1000) + 600_000)},
        "status": {"S": "INPROGRESS"},
        "validation": {"S": digest(body)},
    }


def test_a_key_still_in_progress_is_409_then_usable_once_its_holder_is_gone(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    body = message(owner.address)
    key = "in-flight-key"
    record = _idempotency_record(owner.id, key, body, now(runtime).timestamp())
    db, table = wiring.client("dynamodb"), wiring.settings(Idempotency).table
    db.put_item(TableName=table, Item=record)

    response = owner.live.post("/v3/messages", json=body, headers={"Idempotency-Key": key})
    assert_error(response, 409, "idempotency_in_progress")
    assert response.headers["Retry-After"] == "1"

    # The holder died: its in-progress expiry passed, so the key runs the request afresh.
    expired = int(now(runtime).timestamp() * 1000) - 1000
    db.update_item(
        TableName=table,
        Key={"id": record["id"]},
        UpdateExpression="SET in_progress_expiration = :gone",
        ExpressionAttributeValues={":gone": {"N": str(expired)}},
    )
    first = accepted(owner.live.post("/v3/messages", json=body, headers={"Idempotency-Key": key}))
    assert owner.live.post("/v3/messages", json=body, headers={"Idempotency-Key": key}).json() == first


def test_concurrent_requests_with_one_key_send_once(runtime: Any) -> None:
    owner = verified_sender(runtime)
    to = recipient()
    body = message(owner.address, to)
    responses: list[Any] = []
    start = threading.Barrier(2)

    def post() -> None:
        api = owner.live.with_key(owner.account.live_key)
        start.wait()
        responses.append(api.post("/v3/messages", json=body, headers={"Idempotency-Key": "race"}))

    threads = [threading.Thread(target=post) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    codes = sorted(r.status_code for r in responses)
    assert codes in ([202, 202], [202, 409]), [r.text for r in responses]
    if codes == [202, 202]:
        assert responses[0].json() == responses[1].json()
    else:
        assert_error(next(r for r in responses if r.status_code == 409), 409, "idempotency_in_progress")
    winner = next(r for r in responses if r.status_code == 202).json()
    assert _usage_emails(owner.live) == 1
    settle(runtime, winner["id"])
    assert len(mail_to(runtime, to)) == 1


# -- batch ----------------------------------------------------------------------------------------


def _batch(sender: str, recipients: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"from": sender, "subject": "Batch", "text": "Hello.", "recipients": recipients, **fields}


def test_a_batch_reports_invalid_and_duplicate_recipients(runtime: Any) -> None:
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    good = recipient("good")
    recipients = [
        {"to": f"  {good}  "},
        {"to": "  not an address  "},
        {"to": good.upper().replace("EXAMPLE.COM", "example.com")},
    ]
    result = accepted(test_api.post("/v3/messages.batch", json=_batch(dev_sender(runtime), recipients)))
    assert set(result) == {"batch_id", "accepted", "rejected", "message_ids", "rejected_recipients"}
    assert result["batch_id"].startswith("batch_")
    assert (result["accepted"], result["rejected"], len(result["message_ids"])) == (1, 2, 1)
    invalid, duplicate = result["rejected_recipients"]
    assert (invalid["index"], invalid["to"]) == (1, "not an address") and invalid["reason"]
    assert (duplicate["index"], duplicate["to"]) == (2, recipients[2]["to"])
    assert duplicate["reason"].startswith("duplicate")
    shown = test_api.get(f"/v3/messages/{result['message_ids'][0]}").json()
    assert shown["to"] == [good]
    settle(runtime, *result["message_ids"])


def test_a_batch_without_rejections_omits_or_nulls_rejected_recipients(runtime: Any) -> None:
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    recipients = [{"to": recipient()}, {"to": recipient()}]
    result = accepted(test_api.post("/v3/messages.batch", json=_batch(dev_sender(runtime), recipients)))
    assert (result["accepted"], result["rejected"]) == (2, 0)
    assert result.get("rejected_recipients") in (None, [])
    assert len(set(result["message_ids"])) == 2
    settle(runtime, *result["message_ids"])


def test_batch_vars_render_each_recipients_subject_through_a_template(api: Api, runtime: Any) -> None:
    created = api.post(
        "/v3/templates",
        json={"name": "order", "subject": "Order {{order}} for {{name}}", "html": "<p>Dear {{name}}</p>"},
    )
    assert created.status_code == 201, created.text
    ann, bob = recipient("ann"), recipient("bob")
    body = {
        "from": dev_sender(runtime),
        "template_id": created.json()["id"],
        "recipients": [
            {"to": ann, "vars": {"name": "Ann", "order": 1}},
            {"to": bob, "vars": {"name": "Bob", "order": 2}},
        ],
    }
    result = accepted(api.post("/v3/messages.batch", json=body))
    ann_id, bob_id = result["message_ids"]
    assert api.get(f"/v3/messages/{ann_id}").json()["subject"] == "Order 1 for Ann"
    assert api.get(f"/v3/messages/{bob_id}").json()["subject"] == "Order 2 for Bob"
    settle(runtime, ann_id, bob_id)
    (ann_copy,) = mail_to(runtime, ann)
    (bob_copy,) = mail_to(runtime, bob)
    assert (ann_copy["headers"]["Subject"], bob_copy["headers"]["Subject"]) == ("Order 1 for Ann", "Order 2 for Bob")
    assert "<p>Dear Ann</p>" in (body_of(ann_copy, "html") or "")


def test_more_than_5000_batch_recipients_is_recipient_limit_exceeded(api: Api, runtime: Any) -> None:
    recipients = [{"to": f"r{i}@example.com"} for i in range(5001)]
    assert_error(
        api.post("/v3/messages.batch", json=_batch(dev_sender(runtime), recipients)), 400, "recipient_limit_exceeded"
    )


def test_batch_attachments_are_a_validation_error(api: Api, runtime: Any) -> None:
    body = _batch(dev_sender(runtime), [{"to": recipient()}], attachments=[_attachment(10)])
    assert_error(api.post("/v3/messages.batch", json=body), 400, "validation_error")


# -- scheduled sends ------------------------------------------------------------------------------


def test_scheduled_sends_wait_are_listed_soonest_first_then_go_out(runtime: Any) -> None:
    owner = verified_sender(runtime)
    start = now(runtime)
    later = accepted(
        owner.live.post(
            "/v3/messages", json=message(owner.address, subject="Later", send_at=iso(start + timedelta(hours=2)))
        )
    )
    sooner = accepted(
        owner.live.post(
            "/v3/messages", json=message(owner.address, subject="Sooner", send_at=iso(start + timedelta(hours=1)))
        )
    )
    listed = owner.live.get("/v3/messages/scheduled").json()
    assert [item["id"] for item in listed["items"]] == [sooner["id"], later["id"]]
    assert all(set(item) == SCHEDULED_FIELDS for item in listed["items"])
    assert listed["items"][0]["subject"] == "Sooner"
    assert datetime.fromisoformat(listed["items"][0]["send_at"]) == start + timedelta(hours=1)
    assert listed["pagination"] == {
        "page": 1,
        "per_page": listed["pagination"]["per_page"],
        "total_count": 2,
        "total_pages": 1,
    }
    second_page = owner.live.get("/v3/messages/scheduled?per_page=1&page=2").json()
    assert [item["id"] for item in second_page["items"]] == [later["id"]]
    assert second_page["pagination"] == {"page": 2, "per_page": 1, "total_count": 2, "total_pages": 2}
    assert owner.live.get(f"/v3/messages/{sooner['id']}").json()["send_at"] is not None

    drain(runtime)
    assert statuses([sooner["id"], later["id"]]) == {sooner["id"]: "queued", later["id"]: "queued"}
    assert mail_for(runtime, sooner["id"]) == []

    runtime.advance(3601)
    settle(runtime, sooner["id"])
    assert statuses([later["id"]]) == {later["id"]: "queued"}
    assert len(mail_for(runtime, sooner["id"])) == 1 and mail_for(runtime, later["id"]) == []
    assert [item["id"] for item in owner.live.get("/v3/messages/scheduled").json()["items"]] == [later["id"]]

    runtime.advance(3600)
    settle(runtime, later["id"])
    assert owner.live.get("/v3/messages/scheduled").json()["items"] == []


def test_send_at_is_kept_in_utc_and_the_list_is_ordered_by_instant(runtime: Any) -> None:
    owner = verified_sender(runtime)
    start = now(runtime).replace(microsecond=0)
    sooner_at, later_at = start + timedelta(hours=1), start + timedelta(hours=2)
    # Given at +05:00, the sooner one's text sorts after the later one's "Z" text (a later hour, or day).
    given = sooner_at.astimezone(timezone(timedelta(hours=5))).isoformat()
    assert given.endswith("+05:00") and given > iso(later_at)
    sooner = accepted(owner.live.post("/v3/messages", json=message(owner.address, subject="Sooner", send_at=given)))
    later = accepted(owner.live.post("/v3/messages", json=message(owner.address, send_at=iso(later_at))))
    try:
        in_utc = sooner_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert owner.live.get(f"/v3/messages/{sooner['id']}").json()["send_at"] == in_utc
        listed = owner.live.get("/v3/messages/scheduled").json()["items"]
        assert [item["id"] for item in listed] == [sooner["id"], later["id"]]
        assert [item["send_at"] for item in listed] == [in_utc, later_at.strftime("%Y-%m-%dT%H:%M:%SZ")]
    finally:
        for sent in (sooner, later):  # never let them go out when a later test moves the clock
            owner.live.delete(f"/v3/messages/{sent['id']}")


def test_a_cancelled_scheduled_send_never_goes_out(runtime: Any) -> None:
    owner = verified_sender(runtime)
    send_at = now(runtime) + timedelta(hours=1)
    sent = accepted(owner.live.post("/v3/messages", json=message(owner.address, send_at=iso(send_at))))
    response = owner.live.delete(f"/v3/messages/{sent['id']}")
    assert response.status_code == 200, response.text
    cancelled = response.json()
    assert set(cancelled) == {"id", "status", "message"}
    assert (cancelled["id"], cancelled["status"]) == (sent["id"], "cancelled") and cancelled["message"]
    assert owner.live.get("/v3/messages/scheduled").json()["items"] == []

    runtime.advance(3601)
    drain(runtime)
    assert owner.live.get(f"/v3/messages/{sent['id']}").json()["status"] == "rejected"
    assert mail_for(runtime, sent["id"]) == []
    found = events_of(sent["id"], until=has_types("queued", "rejected"))
    assert types_of(found) == ["queued", "rejected"]
    assert found[-1].data["reason"] == "cancelled"
    assert_error(owner.live.delete(f"/v3/messages/{sent['id']}"), 400, "validation_error")


def test_a_message_sent_now_cannot_be_cancelled(runtime: Any) -> None:
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    sent = accepted(test_api.post("/v3/messages", json=message(dev_sender(runtime))))
    settle(runtime, sent["id"])
    assert_error(test_api.delete(f"/v3/messages/{sent['id']}"), 400, "validation_error")


def test_send_at_more_than_30_days_ahead_is_refused(api: Api, runtime: Any) -> None:
    too_far = now(runtime) + timedelta(days=30, minutes=5)
    assert_error(
        api.post("/v3/messages", json=message(dev_sender(runtime), send_at=iso(too_far))), 400, "validation_error"
    )


def test_send_at_in_the_past_sends_now(runtime: Any) -> None:
    test_api = Api(runtime.base_url, runtime.dev["keys"]["test"])
    past = now(runtime) - timedelta(hours=1)
    sent = accepted(test_api.post("/v3/messages", json=message(dev_sender(runtime), send_at=iso(past))))
    assert settle(runtime, sent["id"]) == {sent["id"]: "delivered"}


def _scheduled(api: Api, sender: str, runtime: Any) -> str:
    body = message(sender, send_at=iso(now(runtime) + timedelta(days=1)))
    return str(accepted(api.post("/v3/messages", json=body))["id"])


def test_a_send_only_key_cancels_its_own_scheduled_send(runtime: Any) -> None:
    owner = verified_sender(runtime)
    created = owner.live.post("/v3/keys", json={"name": "sender", "scope": "send_only"})
    assert created.status_code == 201, created.text
    send_only = owner.live.with_key(created.json()["key"])
    mine = _scheduled(send_only, owner.address, runtime)
    response = send_only.delete(f"/v3/messages/{mine}")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "cancelled"


def test_a_send_only_key_cannot_cancel_another_keys_scheduled_send(runtime: Any) -> None:
    owner = verified_sender(runtime)
    created = owner.live.post("/v3/keys", json={"name": "sender", "scope": "send_only"})
    send_only = owner.live.with_key(created.json()["key"])
    theirs = _scheduled(owner.live, owner.address, runtime)
    try:
        assert_error(send_only.delete(f"/v3/messages/{theirs}"), 403, "insufficient_scope")
        assert owner.live.get(f"/v3/messages/{theirs}").json()["status"] == "queued"
    finally:
        owner.live.delete(f"/v3/messages/{theirs}")  # never let it go out when a later test moves the clock


def test_a_read_only_key_cannot_cancel(runtime: Any) -> None:
    owner = verified_sender(runtime)
    created = owner.live.post("/v3/keys", json={"name": "reader", "scope": "read_only"})
    read_only = owner.live.with_key(created.json()["key"])
    mine = _scheduled(owner.live, owner.address, runtime)
    assert_error(read_only.delete(f"/v3/messages/{mine}"), 403, "insufficient_scope")
    assert read_only.get("/v3/messages/scheduled").json()["pagination"]["total_count"] == 1
    assert owner.live.delete(f"/v3/messages/{mine}").status_code == 200


# -- rejected before send -------------------------------------------------------------------------


def test_a_live_send_from_an_unverified_domain_is_accepted_then_rejected(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    to = recipient()
    sent = accepted(owner.live.post("/v3/messages", json=message(owner.address, to)))
    assert sent["status"] == "queued"
    found = events_of(sent["id"], until=has_types("queued", "rejected"))
    assert types_of(found) == ["queued", "rejected"]
    rejected = next(e for e in found if e.type.value == "rejected")
    assert rejected.recipient == to and rejected.data == {"reason": "domain_not_verified"}
    assert owner.live.get(f"/v3/messages/{sent['id']}").json()["status"] == "rejected"
    drain(runtime)
    assert mail_to(runtime, to) == []
    assert _usage_emails(owner.live) == 0  # nothing was sent, nothing counted


def test_a_rejected_event_is_timestamped_after_its_queued_event(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    sent = accepted(owner.live.post("/v3/messages", json=message(owner.address)))
    found = events_of(sent["id"], until=has_types("queued", "rejected"))
    queued = next(e for e in found if e.type.value == "queued")
    rejected = next(e for e in found if e.type.value == "rejected")
    assert rejected.timestamp > queued.timestamp


def test_a_test_key_needs_no_verified_domain(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    sent = accepted(owner.test.post("/v3/messages", json=message(owner.address)))
    assert settle(runtime, sent["id"]) == {sent["id"]: "delivered"}


def test_verify_before_send_set_on_the_account_applies_to_keys_that_inherit_it(runtime: Any) -> None:
    owner = verified_sender(runtime)
    assert run_cli(runtime, "account", "set-verify-before-send", owner.id, "on")["verify_before_send"] is True
    created = owner.live.post("/v3/keys", json={"name": "never verifies", "env": "test", "verify_before_send": False})
    assert created.status_code == 201, created.text
    opted_out = owner.live.with_key(created.json()["key"])
    keys = owner.test.get("/v3/keys").json()["items"]
    assert next(k for k in keys if k["name"] == "test")["verify_before_send"] is None  # it inherits

    inherited = accepted(owner.test.post("/v3/messages", json=message(owner.address, simulator("invalid"))))
    own = accepted(opted_out.post("/v3/messages", json=message(owner.address, simulator("invalid"))))
    assert settle(runtime, inherited["id"], own["id"]) == {inherited["id"]: "rejected", own["id"]: "delivered"}
    found = events_of(inherited["id"], until=has_types("queued", "rejected"))
    assert types_of(found) == ["queued", "rejected"]
    assert found[-1].data == {
        "reason": "failed_verification",
        "verification": {"result": "invalid", "reason": found[-1].data["verification"]["reason"]},
        "test": True,
    }


# -- the sandbox, and sends routed to it by support -----------------------------------------------


def test_a_sandboxed_account_sends_live_only_to_authorized_recipients(runtime: Any) -> None:
    owner = verified_sender(runtime)
    allowed, other = recipient("allowed"), recipient("other")
    run_cli(runtime, "sandbox", "on", owner.id)
    listed = run_cli(runtime, "sandbox", "add", owner.id, allowed.upper().replace("EXAMPLE.COM", "example.com"))
    assert (listed["sandbox"], listed["sandbox_recipients"]) == (True, [allowed.lower()])

    sent = accepted(owner.live.post("/v3/messages", json=message(owner.address, allowed, other)))
    assert settle(runtime, sent["id"]) == {sent["id"]: "delivered"}
    found = events_of(sent["id"], until=has_types("queued", "queued", "rejected", "delivered"))
    assert types_of(found, allowed) == ["queued", "sent", "delivered"]
    assert types_of(found, other) == ["queued", "rejected"]
    assert found[types_of(found).index("rejected")].data == {"reason": "sandbox_recipient_not_authorized"}
    assert len(mail_to(runtime, allowed)) == 1 and mail_to(runtime, other) == []

    # Nobody authorized: the message is rejected as a whole, and still answered 202.
    only_other = accepted(owner.live.post("/v3/messages", json=message(owner.address, other)))
    assert owner.live.get(f"/v3/messages/{only_other['id']}").json()["status"] == "rejected"
    rejected = events_of(only_other["id"], until=has_types("queued", "rejected"))
    assert [e.data for e in rejected if e.type.value == "rejected"] == [{"reason": "sandbox_recipient_not_authorized"}]
    # A batch: the unauthorized recipient is accepted (202), then rejected like the rest.
    batch = accepted(owner.live.post("/v3/messages.batch", json=_batch(owner.address, [{"to": other}])))
    assert (batch["accepted"], batch["rejected"]) == (1, 0)
    assert statuses(batch["message_ids"]) == {batch["message_ids"][0]: "rejected"}

    # Test keys are not held by the sandbox.
    simulated = accepted(owner.test.post("/v3/messages", json=message(owner.address, other)))
    assert settle(runtime, simulated["id"]) == {simulated["id"]: "delivered"}

    # Removed from the list, then out of the sandbox.
    assert run_cli(runtime, "sandbox", "remove", owner.id, allowed)["sandbox_recipients"] == []
    again = accepted(owner.live.post("/v3/messages", json=message(owner.address, allowed)))
    assert owner.live.get(f"/v3/messages/{again['id']}").json()["status"] == "rejected"
    assert run_cli(runtime, "sandbox", "off", owner.id)["sandbox"] is False
    free = accepted(owner.live.post("/v3/messages", json=message(owner.address, other)))
    assert settle(runtime, free["id"]) == {free["id"]: "delivered"}
    assert len(mail_to(runtime, other)) == 1


def test_an_account_routed_to_the_sandbox_has_its_live_sends_simulated(runtime: Any) -> None:
    owner = verified_sender(runtime)
    assert run_cli(runtime, "sandbox", "route", owner.id, "on")["routed_to_sandbox"] is True
    to = recipient("routed")
    sent = accepted(owner.live.post("/v3/messages", json=message(owner.address, to, html=HTML)))
    bounce = accepted(owner.live.post("/v3/messages", json=message(owner.address, simulator("bounce"))))
    assert settle(runtime, sent["id"], bounce["id"]) == {sent["id"]: "delivered", bounce["id"]: "bounced"}
    for message_id, types in (
        (sent["id"], ["queued", "sent", "delivered"]),
        (bounce["id"], ["queued", "sent", "bounced"]),
    ):
        found = events_of(message_id, until=has_types(*types))
        assert types_of(found) == types
        assert all(e.data.get("test") is True and e.data.get("routed") is True for e in found), found
    assert mail_to(runtime, to) == []  # nothing left the machine
    assert suppressions.suppressions().suppressed(owner.id, [simulator("bounce")]) == set()  # a simulated bounce

    # Own test-key sends carry test, not routed.
    own = accepted(owner.test.post("/v3/messages", json=message(owner.address)))
    settle(runtime, own["id"])
    found = events_of(own["id"], until=has_types("queued", "sent", "delivered"))
    assert all(e.data.get("test") is True and "routed" not in e.data for e in found)

    # Routed back: live sends go out again, without either flag.
    run_cli(runtime, "sandbox", "route", owner.id, "off")
    real = accepted(owner.live.post("/v3/messages", json=message(owner.address, to)))
    settle(runtime, real["id"])
    found = events_of(real["id"], until=has_types("queued", "sent", "delivered"))
    assert all("test" not in e.data and "routed" not in e.data for e in found)
    assert len(mail_to(runtime, to)) == 1


def test_a_routed_account_needs_no_verified_domain_for_its_simulated_sends(runtime: Any) -> None:
    owner = unverified_sender(runtime)
    run_cli(runtime, "sandbox", "route", owner.id, "on")
    sent = accepted(owner.live.post("/v3/messages", json=message(owner.address)))
    assert settle(runtime, sent["id"]) == {sent["id"]: "delivered"}


def test_one_key_routed_to_the_sandbox_leaves_the_accounts_other_keys_live(runtime: Any) -> None:
    owner = verified_sender(runtime)
    routed_key = owner.live.get("/v3/whoami").json()["api_key"]["id"]
    done = run_cli(runtime, "sandbox", "route", owner.id, "on", "--key", routed_key)
    assert done == {"account_id": owner.id, "key_id": routed_key, "routed_to_sandbox": True}
    created = owner.live.post("/v3/keys", json={"name": "still live", "env": "live"})
    assert created.status_code == 201, created.text
    other_key = owner.live.with_key(created.json()["key"])
    assert "routed_to_sandbox" not in owner.live.get(f"/v3/keys/{routed_key}").json()

    first, second = recipient("via-routed"), recipient("via-live")
    routed = accepted(owner.live.post("/v3/messages", json=message(owner.address, first)))
    live = accepted(other_key.post("/v3/messages", json=message(owner.address, second)))
    settle(runtime, routed["id"], live["id"])
    assert mail_to(runtime, first) == [] and len(mail_to(runtime, second)) == 1
    routed_events = events_of(routed["id"], until=has_types("queued", "sent", "delivered"))
    assert all(e.data.get("routed") is True and e.data.get("test") is True for e in routed_events)


def _unsubscribe(url_header: str) -> None:
    url = url_header.strip("<>")
    response = requests.post(
        url,
        data="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        timeout=30,
    )
    assert response.status_code == 200, response.text


def test_a_send_to_only_suppressed_recipients_is_rejected(runtime: Any) -> None:
    owner = verified_sender(runtime)
    to = recipient("leaver")
    first = accepted(owner.live.post("/v3/messages", json=message(owner.address, to)))
    settle(runtime, first["id"])
    (copy,) = mail_to(runtime, to)
    _unsubscribe(copy["headers"]["List-Unsubscribe"])

    again = accepted(
        owner.live.post("/v3/messages", json=message(owner.address, to.upper().replace("EXAMPLE.COM", "example.com")))
    )
    found = events_of(again["id"], until=has_types("queued", "rejected"))
    assert types_of(found) == ["queued", "rejected"]
    assert found[-1].data == {"reason": "all_recipients_suppressed"}
    assert owner.live.get(f"/v3/messages/{again['id']}").json()["status"] == "rejected"
    drain(runtime)
    assert len(mail_to(runtime, to)) == 1  # only the first one


# -- quotas and the operator's hold ---------------------------------------------------------------


def test_operator_pause_holds_live_sends_only(runtime: Any) -> None:
    owner = unverified_sender(runtime)  # live sends are rejected before send: nothing is delivered
    run_cli(runtime, "sending", "pause", "--account", owner.id)
    try:
        response = owner.live.post("/v3/messages", json=message(owner.address))
        assert_error(response, 503, "sending_paused")
        assert int(response.headers["Retry-After"]) > 0
        batch = _batch(owner.address, [{"to": recipient()}])
        assert_error(owner.live.post("/v3/messages.batch", json=batch), 503, "sending_paused")
        test_send = accepted(owner.test.post("/v3/messages", json=message(owner.address)))
    finally:
        run_cli(runtime, "sending", "resume", "--account", owner.id)
    accepted(owner.live.post("/v3/messages", json=message(owner.address)))
    settle(runtime, test_send["id"])
