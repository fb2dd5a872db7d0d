"""Erasure, the proof (issue 27): an address is mailed over the API and over SMTP, opens, clicks,
follows a hosted upload's link in its message to a download, unsubscribes, is seen by webhooks,
exported and verified; then POST /v3/data-removals erases it (the metrics summary unchanged, the
live message's content route 404).
Afterwards every DynamoDB table, every object of every bucket and every queue of the emulator is
searched for the address (as written, lowercased, URL-encoded, and base64 as a MIME part holds it)
and it is found nowhere; the erased bodies no longer decrypt; the receipt verifies with PyNaCl, in
the erasure page's five lines; and a send to the address is still refused (its unsubscribe kept as a
keyed hash). A fan-out of the erased events' stream records after the removal (a lagging or
redelivered batch: the stream keeps them 24 hours) POSTs nothing, to the endpoints it knew or one
created since, and brings no delivery back."""

from __future__ import annotations

import base64
import json
import re
import smtplib
import ssl
import uuid
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

import pytest
import requests
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from postline import wiring
from postline.accounts.domain import Plan
from postline.config import Events, Messages
from postline.data_removals import holdings
from postline.data_removals.domain import erasure_token
from postline.events.store import StreamRecords
from postline.sending.store import body_key, message_key
from postline.shared.dynamo import from_attrs
from postline.webhook_delivery.domain import Target, delivery_id
from postline.wiring import sending, webhook_delivery
from postline.wiring import uploads as uploads_root
from tests.e2e.sending_support import (
    Sender,
    accepted,
    body_of,
    drain,
    events_of,
    has_types,
    iso,
    mail_for,
    message,
    now,
    put_verified_domain,
    settle,
    verified_sender,
)
from tests.e2e.stream_support import kept_stream
from tests.e2e.support import Api, assert_error, make_account
from tests.e2e.webhook_support import create_endpoint
from tests.peers.webhook_receiver import Receiver
from tests.support import eventually

pytestmark = pytest.mark.e2e

BROWSER = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
)
LINK = "https://shop.example.com/orders/42"
HTML = f'<html><body><p>Your order shipped.</p><a href="{LINK}">Track it</a>{{upload}}</body></html>'
MENU = b"%PDF-1.4 Our autumn menu"
EVENTS = ["queued", "sent", "delivered", "opened", "clicked", "unsubscribed", "bounced", "rejected"]


# -- searching the emulator ------------------------------------------------------------------------


def text_needles(address: str) -> list[bytes]:
    """The address as written, lowercased and URL-encoded (with and without '@' escaped), any case."""
    found = set()
    for form in (address, address.lower()):
        found |= {form, quote(form, safe=""), quote(form, safe="@"), quote_plus(form)}
    return [form.lower().encode() for form in found]


def base64_needles(address: str) -> list[bytes]:
    """What any base64 stream holding the address contains, at each of the three alignments: the
    characters that depend on the address's bytes alone."""
    needles = []
    for form in {address, address.lower()}:
        raw = form.encode()
        for offset in range(3):
            encoded = base64.b64encode(b"\0" * offset + raw)
            start = -(-offset * 4 // 3)  # the characters that mix in the padding bytes: skipped
            end = (offset + len(raw)) // 3 * 4  # the last group, mixed with what follows: skipped
            needles.append(encoded[start:end])
    return needles


def found_in(data: bytes, address: str) -> bool:
    lowered = data.lower()
    return any(needle in lowered for needle in text_needles(address)) or any(
        needle in data for needle in base64_needles(address)
    )


def leftovers(address: str) -> list[str]:
    """Where the emulator still holds the address: every table's items, every bucket's objects, every
    queue's messages (peeked: left visible), every workflow execution's input."""
    found: list[str] = []
    db = wiring.client("dynamodb")
    for table in db.list_tables()["TableNames"]:
        for page in db.get_paginator("scan").paginate(TableName=table):
            for item in page["Items"]:
                if found_in(json.dumps(item, default=str).encode(), address):
                    found.append(f"dynamodb {table}: {item.get('pk', {}).get('S')} / {item.get('sk', {}).get('S')}")
    s3 = wiring.client("s3")
    for bucket in s3.list_buckets()["Buckets"]:
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket["Name"]):
            for stored in page.get("Contents", []):
                data = s3.get_object(Bucket=bucket["Name"], Key=stored["Key"])["Body"].read()
                if found_in(data, address):
                    found.append(f"s3 {bucket['Name']}/{stored['Key']}")
    sqs = wiring.client("sqs")
    for url in sqs.list_queues().get("QueueUrls", []):
        seen: set[str] = set()
        for _ in range(5):  # after a drain a queue holds nothing visible: usually one empty receive
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0, WaitTimeSeconds=0)
            if not got.get("Messages") or all(m["MessageId"] in seen for m in got["Messages"]):
                break
            for received in got.get("Messages", []):
                if received["MessageId"] not in seen and found_in(received["Body"].encode(), address):
                    found.append(f"sqs {url.rsplit('/', 1)[-1]}: {received['MessageId']}")
                seen.add(received["MessageId"])
    sfn = wiring.client("stepfunctions")
    for machine in sfn.list_state_machines()["stateMachines"]:
        for execution in sfn.list_executions(stateMachineArn=machine["stateMachineArn"])["executions"]:
            described = sfn.describe_execution(executionArn=execution["executionArn"])
            if found_in(str(described.get("input", "")).encode(), address):
                found.append(f"stepfunctions {execution['name']}")
    return found


# -- the history of one address ---------------------------------------------------------------------


def visit(runtime: Any, url: str) -> requests.Response:
    """A reader's GET of a link in the mail: on the branded tracking host, which its CNAME leads to the
    runtime's API."""
    return requests.get(_on_runtime(runtime, url), headers={"User-Agent": BROWSER}, allow_redirects=False, timeout=30)


def _on_runtime(runtime: Any, url: str) -> str:
    parts = urlsplit(url)
    return f"{runtime.base_url}{parts.path}" + (f"?{parts.query}" if parts.query else "")


def with_tracking_host(sender: Sender) -> None:
    """The sender's verified domain with its tracking CNAME found (t.<domain>): its uploads get a hosted
    link, and its mail's links go through that host."""
    put_verified_domain(sender.id, sender.domain, tracked=True)


def smtp_send(runtime: Any, sender: Sender, to: str) -> str:
    host, port = runtime.smtp.rsplit(":", 1)
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender.address, to, "Over SMTP"
    mail.set_content(f"Hello {to}, over SMTP.\n")
    with smtplib.SMTP(host, int(port), timeout=60) as smtp:
        smtp.starttls(context=ssl.create_default_context(cafile=str(runtime.smtp_certificate)))
        smtp.login("api", sender.account.live_key)
        smtp.mail(sender.address)
        assert smtp.rcpt(to)[0] == 250
        code, text = smtp.data(mail.as_bytes())
    assert code == 250, text
    return text.decode().rsplit(" ", 1)[-1]


def history(runtime: Any, sender: Sender, address: str, receiver: Receiver) -> tuple[list[str], str]:
    """Sends (API and SMTP), an open, two clicks (one to a hosted upload, followed to its download), a
    one-click unsubscribe, a (simulated) bounce, webhooks, an export, a verification job; the ids of
    the messages sent, and the upload's id."""
    with_tracking_host(sender)
    create_endpoint(sender.live, receiver.url, events=EVENTS)
    menu = sender.live.post("/v3/uploads", json={"filename": "menu.pdf", "content": base64.b64encode(MENU).decode()})
    assert menu.status_code == 201 and menu.json()["url"], menu.text
    upload = menu.json()
    html = HTML.replace("{upload}", f'<a href="{upload["url"]}">Our menu</a>')
    keyed = {"Idempotency-Key": f"erase-{uuid.uuid4().hex}"}  # its stored reply names the address too
    api_id = accepted(
        sender.live.post("/v3/messages", json=message(sender.address, address, html=html), headers=keyed)
    )["id"]
    smtp_id = smtp_send(runtime, sender, address)
    settle(runtime, api_id, smtp_id)
    # A bounce: a test key whose simulated sends all bounce.
    bouncing = sender.live.post(
        "/v3/keys", json={"name": "bounces", "env": "test", "test_outcomes": {"send": {"bounce": 1}}}
    )
    assert bouncing.status_code == 201, bouncing.text
    bounced = accepted(
        sender.live.with_key(bouncing.json()["key"]).post("/v3/messages", json=message(sender.address, address))
    )
    settle(runtime, bounced["id"])
    assert sender.live.get(f"/v3/messages/{bounced['id']}").json()["status"] == "bounced"

    (copy,) = mail_for(runtime, api_id)
    delivered_html = body_of(copy, "html") or ""
    clicks = re.findall(r'href="([^"]+/v3/track/click/[^"]+)"', delivered_html)
    (pixel,) = re.findall(r'<img src="([^"]+/v3/track/open/[^"]+)"', delivered_html)
    assert len(clicks) == 2 and all(link.startswith(f"https://t.{sender.domain}/") for link in clicks), clicks
    runtime.advance(120)  # past the window in which a hit is a link scanner's
    assert visit(runtime, pixel).status_code == 200
    to_shop, to_menu = (visit(runtime, link) for link in clicks)
    assert to_shop.status_code == 302 and to_shop.headers["Location"] == LINK
    assert to_menu.status_code == 302 and to_menu.headers["Location"].startswith(upload["url"] + "?delivered=")
    to_s3 = visit(runtime, to_menu.headers["Location"])  # the hosted link: a person's download
    assert to_s3.status_code == 302 and requests.get(to_s3.headers["Location"], timeout=30).content == MENU
    assert sender.live.get(f"/v3/uploads/{upload['id']}").json()["download_count"] == 1
    content = sender.live.get(f"/v3/messages/{api_id}/content")
    assert content.status_code == 200 and address in content.text, content.text
    unsubscribe = _on_runtime(runtime, copy["headers"]["List-Unsubscribe"].strip("<>"))
    one_click = requests.post(
        unsubscribe,
        data="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded", "User-Agent": BROWSER},
        timeout=30,
    )
    assert one_click.status_code == 200, one_click.text
    drain(runtime)

    def all_recorded() -> list[str]:
        listed = sender.live.get("/v3/events", params={"recipient": address, "limit": 100}).json()["items"]
        kinds = sorted({event["type"] for event in listed})
        assert {"delivered", "opened", "clicked", "unsubscribed"} <= set(kinds), kinds
        return kinds

    eventually(all_recorded, 30, waiting_for="the address's events")
    receiver.wait_for(4)

    window = {"since": iso(now(runtime) - timedelta(hours=1)), "until": iso(now(runtime))}
    export = accepted(sender.live.post("/v3/events/export", json={**window, "format": "csv"}))
    drain(runtime)
    job = sender.live.get(f"/v3/events/export/{export['export_id']}").json()
    assert job["status"] == "completed", job
    assert address in requests.get(job["download_url"], timeout=30).text

    # A suppression import naming it (the file is kept 7 days), then an export of the lists.
    imported = sender.live.post(
        "/v3/suppressions/import", json={"type": "bounces", "filename": "old.csv", "csv": f"email\n{address}\n"}
    )
    assert imported.status_code == 202, imported.text
    drain(runtime)
    listed = sender.live.post("/v3/suppressions/export", json={"type": "unsubscribes"})
    assert listed.status_code == 202, listed.text
    drain(runtime)
    suppressions_file = sender.live.get(f"/v3/suppressions/exports/{listed.json()['export_id']}").json()
    assert suppressions_file["status"] == "completed", suppressions_file
    assert address in requests.get(suppressions_file["download_url"], timeout=30).text

    verified = sender.test.post("/v3/validate/bulk", json={"emails": [address, "valid@simulator.postline.dev"]})
    assert verified.status_code == 202, verified.text
    assert sender.test.post("/v3/validate", json={"email": address}).status_code == 200
    drain(runtime)
    return [api_id, smtp_id, bounced["id"]], upload["id"]


def removal(api: Api, runtime: Any, address: str) -> dict[str, Any]:
    started = api.post("/v3/data-removals", json={"email": address})
    assert started.status_code == 202, started.text
    assert started.json()["status"] == "pending"
    removal_id = started.json()["removal_id"]

    def ended() -> dict[str, Any]:
        drain(runtime)
        found: dict[str, Any] = api.get(f"/v3/data-removals/{removal_id}").json()
        assert found["status"] in ("done", "failed"), found
        return found

    return eventually(ended, 60, waiting_for=f"removal {removal_id}")


# -- the proof --------------------------------------------------------------------------------------


def test_an_erased_address_is_nowhere_in_the_emulator_and_the_receipt_verifies(
    runtime: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(holdings, "PAGE", 3)  # many small batches, each saved before it is erased
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    key = sender.account.live_key
    address = f"erase.me.{uuid.uuid4().hex[:10]}@example.com"
    with Receiver() as receiver:
        sent, upload_id = history(runtime, sender, address, receiver)
    listed = sender.live.get("/v3/events", params={"recipient": address, "limit": 100}).json()["total_count"]
    window = {"since": iso(now(runtime) - timedelta(hours=2)), "until": iso(now(runtime) + timedelta(hours=1))}

    def rolled_up() -> dict[str, Any]:  # the roll-up worker has seen the last event (the unsubscribe)
        drain(runtime)
        summary: dict[str, Any] = sender.live.get("/v3/metrics/summary", params=window).json()
        engagement = summary["engagement"]
        assert (engagement["clicks"], engagement["unique_clicks"], engagement["unsubscribes"]) == (2, 1, 1), summary
        return summary

    summary_before = eventually(rolled_up, 30, waiting_for="the metrics roll-up")
    hits_before = uploads_root.upload_store().hits(sender.id, upload_id)
    assert [(hit["human"], hit.get("reason")) for hit in hits_before] == [(True, None)]
    held = leftovers(address)
    assert {"Suppressions", "Events", "Idempotency", "Messages", "WebhookDeliveries"} <= {
        where.split()[1].rstrip(":").removeprefix("postline-local-").removesuffix("Table")
        for where in held
        if " " in where
    }, held
    sealed_before = {m: from_attrs(_body_item(m))["sealed"] for m in sent}
    assert all("dek" in sealed for sealed in sealed_before.values())

    done = removal(sender.live, runtime, address)

    assert done["status"] == "done", done
    assert done["email"] != address and done["email"].startswith("e***@")
    counts = done["counts"]
    assert counts["messages"] == 3 and counts["body_deks_destroyed"] == 3 and counts["dek_tombstoned"] == 3
    assert (
        counts["events"] == listed >= 11
    )  # each message's queued, sent, delivered or bounced; open, click, unsubscribe
    # the event export, the suppression export and the imported file (a test-mode verification job
    # writes no file)
    assert counts["exports_purged"] == 3
    assert counts["verifications"] >= 1 and counts["already_erased"] is False
    # The download record held no address (the hosted link is the upload's, one for every reader):
    # nothing of it to erase, so none counted; the download stays counted.
    assert counts["upload_downloads"] == 0
    assert uploads_root.upload_store().hits(sender.id, upload_id) == hits_before
    assert sender.live.get(f"/v3/uploads/{upload_id}").json()["download_count"] == 1
    remaining = leftovers(address)
    assert remaining == [], remaining
    # The roll-ups keep their counts: they hold no address.
    summary_after = sender.live.get("/v3/metrics/summary", params=window).json()
    assert {**summary_after, "data_as_of": None} == {**summary_before, "data_as_of": None}
    # A live message's content: its data key is destroyed, so the route has nothing to show.
    erased = sender.live.get(f"/v3/messages/{sent[0]}/content")
    assert_error(erased, 404, "not_found")
    assert "erased" in erased.json()["error"]["message"] and address not in erased.text
    # What the API still shows: the messages with their status, their recipient as the token.
    for message_id in sent:
        shown = sender.live.get(f"/v3/messages/{message_id}").json()
        assert shown["status"] in ("delivered", "bounced") and shown["to"] == [token_of(done)], shown
    gone = sender.live.get("/v3/events", params={"recipient": address, "limit": 100}).json()
    assert gone["items"] == [] and gone["total_count"] == 0, gone

    # The bodies: their data keys are gone, so nothing opens them, whatever holds the KEK.
    for message_id, sealed in sealed_before.items():
        after = from_attrs(_body_item(message_id))
        assert "dek" not in after["sealed"] and "body" not in after["sealed"]
        assert after["sealed"]["kek"] == sealed["kek"]  # the KEK stays: without the DEK it opens nothing
        with pytest.raises(LookupError):
            sending.vault().open(message_id, after["sealed"])
        message_item = from_attrs(_message_item(message_id))
        assert "sealed" not in message_item and address not in json.dumps(message_item)

    # The receipt, as a data-protection officer checks it: the erasure page's five lines, run as written.
    receipt = done["receipt"]
    namespace = {"BASE": runtime.base_url, "ID": done["removal_id"], "AUTH": {"Authorization": f"Bearer {key}"}}
    exec(page_verification(), namespace)  # noqa: S102 (the erasure page's own code)
    assert namespace["r"] == receipt
    forged = json.dumps({**json.loads(receipt["payload"]), "counts": {**counts, "events": 0}}, sort_keys=True)
    with pytest.raises(BadSignatureError):
        VerifyKey(base64.urlsafe_b64decode(receipt["public_key"] + "==")).verify(
            forged.encode(), base64.b64decode(receipt["signature"])
        )
    stated = json.loads(receipt["payload"])
    assert stated["counts"] == counts and stated["address_hash"] == done["address_hash"]
    assert stated["removal_id"] == done["removal_id"] and address not in receipt["payload"]

    # Still never mailed: the unsubscribe is kept under the keyed hash.
    refused = accepted(sender.live.post("/v3/messages", json=message(sender.address, address)))
    settle(runtime, refused["id"])
    assert sender.live.get(f"/v3/messages/{refused['id']}").json()["status"] == "rejected"
    assert mail_for(runtime, refused["id"]) == []
    (rejected,) = [e for e in events_of(refused["id"], until=has_types("rejected")) if e.type.value == "rejected"]
    assert rejected.data == {"reason": "all_recipients_suppressed"}

    # A repeat finds nothing left (the refused send above is erased with it).
    again = removal(sender.live, runtime, address)
    assert again["status"] == "done" and again["counts"]["already_erased"] is True
    assert leftovers(address) == []


def test_a_late_fan_out_of_an_erased_events_stream_records_posts_nothing(runtime: Any) -> None:
    sender = verified_sender(runtime)
    address = f"late.{uuid.uuid4().hex[:10]}@example.com"
    events_table = wiring.settings(Events).table
    with Receiver() as hooks, Receiver() as own, Receiver() as newer, kept_stream(runtime, events_table) as stream:
        hook = create_endpoint(sender.live, hooks.url, events=EVENTS)
        sent = accepted(sender.live.post("/v3/messages", json=message(sender.address, address, webhook_url=own.url)))
        settle(runtime, sent["id"])
        drain(runtime)
        records = [r for r in stream.records() if r["dynamodb"]["Keys"]["pk"]["S"].startswith(f"EVT#{sender.id}#")]
        events = StreamRecords().new_events(records)
        assert {e.type.value for e in events} >= {"queued", "sent", "delivered"} and events[0].recipient == address
        wanted = [e for e in events if e.type.value in EVENTS]
        hooks.wait_for(len(wanted))  # each event once to each of its targets
        own.wait_for(len(events))
        ids = [delivery_id(e.id, Target(endpoint_id=hook["id"], url=hooks.url)) for e in wanted]
        ids += [delivery_id(e.id, Target(endpoint_id=None, url=own.url)) for e in events]
        history = sender.live.get(f"/v3/webhooks/{hook['id']}/deliveries").json()["deliveries"]
        assert len(history) == len(wanted), history
        posted = (len(hooks.requests), len(own.requests))

        done = removal(sender.live, runtime, address)
        assert done["status"] == "done" and done["counts"]["events"] == len(events), done
        since_removal = create_endpoint(sender.live, newer.url, events=EVENTS)  # no tombstone for it

        # The stream's records of the erased events, fanned out again after the removal.
        deliverer = webhook_delivery.webhook_deliverer()
        deliverer.fan_out_records(records)
        assert [deliverer.attempt(each) for each in ids] == [(True, None)] * len(ids)  # the retry schedule's task
        drain(runtime)
        assert (len(hooks.requests), len(own.requests), len(newer.requests)) == (*posted, 0)
        later = sender.live.get(f"/v3/webhooks/{since_removal['id']}/deliveries").json()["deliveries"]
        assert later == [], later
        shown = sender.live.get(f"/v3/webhooks/{hook['id']}/deliveries")
        assert shown.status_code == 200 and shown.json()["deliveries"] == [], shown.text
        assert webhook_delivery.webhook_deliveries().get_many(ids) == {}
        since = iso(now(runtime) - timedelta(hours=1))
        resent = sender.live.post(
            "/v3/webhooks/deliveries/resend", json={"filter": {"endpoint_id": hook["id"], "since": since}}
        )
        assert resent.status_code == 202, resent.text
        drain(runtime)
        job = sender.live.get(f"/v3/webhooks/deliveries/resend/{resent.json()['id']}").json()
        assert (job["matched"], job["attempted"]) == (0, 0), job
        assert (len(hooks.requests), len(own.requests), len(newer.requests)) == (*posted, 0)
        assert leftovers(address) == []


def test_a_removal_needs_one_form_of_address_and_a_live_key(runtime: Any) -> None:
    sender = verified_sender(runtime)
    assert_error(sender.live.post("/v3/data-removals", json={}), 400, "validation_error")
    assert_error(sender.live.post("/v3/data-removals", json={"email": "nope"}), 400, "validation_error")
    both = {"email": "a@example.com", "emails": ["b@example.com"]}
    assert_error(sender.live.post("/v3/data-removals", json=both), 400, "validation_error")
    assert_error(sender.test.post("/v3/data-removals", json={"email": "a@example.com"}), 403, "test_key_forbidden")
    assert_error(sender.live.get("/v3/data-removals/nope"), 404, "not_found")
    batch = sender.live.post("/v3/data-removals", json={"emails": ["a@example.com", "B@example.com", "a@example.com"]})
    assert batch.status_code == 202, batch.text
    assert [item["status"] for item in batch.json()["items"]] == ["pending", "pending"]


def token_of(removal: dict[str, Any]) -> str:
    return erasure_token(removal["address_hash"].removeprefix("hmac-sha256:"))


def page_verification() -> str:
    """The Python block of the erasure page (docs/guides/data-removals.md) that verifies a receipt."""
    page = (Path(__file__).parents[2] / "docs" / "guides" / "data-removals.md").read_text()
    block = re.search(r"```python\n(.*?)```", page, re.DOTALL)
    assert block is not None, "the erasure page has no python block"
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 5, lines
    return block.group(1)


def _message_item(message_id: str) -> dict[str, Any]:
    item: dict[str, Any] = wiring.client("dynamodb").get_item(
        TableName=wiring.settings(Messages).table, Key=message_key(message_id), ConsistentRead=True
    )["Item"]
    return item


def _body_item(message_id: str) -> dict[str, Any]:
    item: dict[str, Any] = wiring.client("dynamodb").get_item(
        TableName=wiring.settings(Messages).table, Key=body_key(message_id), ConsistentRead=True
    )["Item"]
    return item


def test_an_organisation_erases_an_address_across_its_subaccounts(runtime: Any) -> None:
    parent = make_account(plan=Plan.PROFESSIONAL)
    live, test = Api(runtime.base_url, parent.live_key), Api(runtime.base_url, parent.test_key)
    made = live.post("/v3/subaccounts", json={"name": "Shop", "slug": f"shop-{uuid.uuid4().hex[:8]}"})
    assert made.status_code == 201, made.text
    sub = made.json()["id"]
    address = f"org.{uuid.uuid4().hex[:10]}@example.com"
    own = accepted(test.post("/v3/messages", json=message("hello@example.com", address)))
    theirs = accepted(
        test.post("/v3/messages", json=message("hello@example.com", address), headers={"On-Behalf-Of": sub})
    )
    settle(runtime, own["id"], theirs["id"])
    accounts = {from_attrs(_message_item(m))["account_id"] for m in (own["id"], theirs["id"])}
    assert accounts == {parent.id, sub}

    started = live.post("/v3/data-removals", json={"email": address, "include_subaccounts": True})
    assert started.status_code == 202, started.text
    as_sub = live.post("/v3/data-removals", json={"email": address, "include_subaccounts": True},
                       headers={"On-Behalf-Of": sub})  # fmt: skip
    assert_error(as_sub, 403, "not_a_parent")
    removal_id = started.json()["removal_id"]

    def ended() -> dict[str, Any]:
        drain(runtime)
        found: dict[str, Any] = live.get(f"/v3/data-removals/{removal_id}").json()
        assert found["status"] == "done", found
        return found

    done = eventually(ended, 60, waiting_for=f"removal {removal_id}")
    assert done["counts"]["messages"] == 2 and json.loads(done["receipt"]["payload"])["accounts"] == [parent.id, sub]
    assert leftovers(address) == []
