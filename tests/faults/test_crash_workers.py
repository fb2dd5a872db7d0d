"""A crash at every AWS call of the remaining workers on the session's runtime, and a transient AWS
error at each (issue 31's harness: tests/faults/crash.py; the job workers are in test_crash_jobs.py).

Each workload is small and real (the runtime's HTTP API, its queues, streams and schedules); the
runtime redelivers as SQS and the streams would, and a scheduled run that dies is followed by the
next one (every 5 minutes: the clock is moved past it). Then:
- FeedbackFunction: SES reports (via the SNS envelope) for a sent message, a hard bounce for one
  recipient and then (once the first is settled, with its event) a complaint for another: one
  bounced and one complained event each, nothing else moved, each suppressed once with the right type.
- RecipientActivityFunction: two live sends to one address: its activity counts 2 sends and 2
  deliveries, not one more.
- WebhookResendFunction: a failed delivery resent by id: the job completed with 1 matched,
  attempted and succeeded, one manual delivery in the history, succeeded, and every POST the
  receiver had of it carries that one delivery's id.
- UploadsSweepFunction: an upload past its expiry (its file deleted, 410), a presigned upload whose
  file arrived without `complete` (settled with its size) and one that never got a file (released):
  used_bytes exactly the settled one's size.
- SubaccountPurgeFunction: a deleted subaccount with a domain, a list of 3 members and 2
  suppressions: purged, its audit entry's counts exact, its sibling untouched.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import UTC, timedelta
from typing import Any

import pytest
import requests

from devtools.local.cloudformation import physical_name
from devtools.local.runtime import Runtime
from postline.accounts.domain import Plan
from postline.wiring import domains, lists, suppressions, verification
from postline.wiring import uploads as uploads_root
from postline.wiring.registry import client
from tests.e2e.sending_support import now, put_verified_domain, verified_sender
from tests.e2e.support import Api, make_account
from tests.faults.crash import CallFault, sweep
from tests.peers.webhook_receiver import Receiver
from tests.support import eventually

pytestmark = pytest.mark.e2e
REDELIVERY_SECONDS = 1000  # past the queues' visibility timeouts (960 s)
SCHEDULE_SECONDS = 301  # past the next run of a 5-minute schedule


def settle(runtime: Runtime, *moves: float) -> None:
    """Drains, then for each of `moves` (default: one redelivery) moves the clock on and drains: one
    fault a case, so one redelivery, or the next run of a schedule, finishes what it left."""
    runtime.drain(60)
    for seconds in moves or (REDELIVERY_SECONDS,):
        runtime.advance(seconds)
        runtime.drain(60)


def events_of(api: Api, message_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api.get("/v3/events", params={"message_id": message_id, "limit": 100}).json()["items"]
    return found


# -- FeedbackFunction -------------------------------------------------------------------------------


def feedback(runtime: Runtime, case: str) -> None:
    sender = verified_sender(runtime)
    run = uuid.uuid4().hex[:8]
    bounced, complained, kept = (f"{name}.{run}@example.com" for name in ("b", "c", "k"))
    body = {"from": f"hello@{sender.domain}", "to": [bounced, complained, kept], "subject": "s", "text": "t"}
    sent = sender.test.post("/v3/messages", json=body)
    assert sent.status_code == 202, sent.text
    message_id = sent.json()["id"]
    runtime.drain(60)
    assert sender.test.get(f"/v3/messages/{message_id}").json()["status"] == "delivered", case
    at = now(runtime).astimezone(UTC).isoformat().replace("+00:00", "Z")
    mail = {"timestamp": at, "messageId": f"ses-{run}", "tags": {"postline_message_id": [message_id]}}
    reports = [
        {
            "eventType": "Bounce",
            "mail": mail,
            "bounce": {
                "bounceType": "Permanent",
                "bounceSubType": "General",
                "timestamp": at,
                "bouncedRecipients": [{"emailAddress": bounced, "diagnosticCode": "smtp; 550 5.1.1 user unknown"}],
            },
        },
        {
            "eventType": "Complaint",
            "mail": mail,
            "complaint": {
                "timestamp": at,
                "complaintFeedbackType": "abuse",
                "complainedRecipients": [{"emailAddress": complained}],
            },
        },
    ]
    sqs = client("sqs")
    queue = sqs.get_queue_url(QueueName=physical_name("FeedbackQueue"))["QueueUrl"]
    for report, (recipient, kind) in zip(reports, [(bounced, "bounced"), (complained, "complained")], strict=True):
        # as SNS delivers them: the report in an envelope's Message; one after the other, and each
        # report's event there once it is settled (its redelivery's doing, not the next report's)
        sqs.send_message(
            QueueUrl=queue, MessageBody=json.dumps({"Type": "Notification", "Message": json.dumps(report)})
        )
        settle(runtime)
        found = [e for e in events_of(sender.test, message_id) if e["type"] == kind]
        assert [e["recipient"] for e in found] == [recipient], f"{case}: {kind} {found}"
    events = events_of(sender.test, message_id)
    moved = Counter((e["recipient"], e["type"]) for e in events if e["type"] in {"bounced", "complained"})
    assert moved == Counter({(bounced, "bounced"): 1, (complained, "complained"): 1}), f"{case}: {events}"
    delivered = Counter(e["recipient"] for e in events if e["type"] == "delivered")
    assert delivered == Counter([bounced, complained, kept]), f"{case}: delivered {dict(delivered)}"
    listed = {
        kind: [item["email"] for item in sender.test.get("/v3/suppressions", params={"type": kind}).json()["items"]]
        for kind in ("bounces", "complaints")
    }
    assert listed == {"bounces": [bounced], "complaints": [complained]}, f"{case}: suppressed {listed}"


# -- RecipientActivityFunction ----------------------------------------------------------------------


def recipient_activity(runtime: Runtime, case: str) -> None:
    sender = verified_sender(runtime)
    address = f"pat.{uuid.uuid4().hex[:10]}@example.com"
    for subject in ("one", "two"):
        body = {"from": f"hello@{sender.domain}", "to": [address], "subject": subject, "text": "t"}
        assert sender.live.post("/v3/messages", json=body).status_code == 202
    settle(runtime)
    finals = Counter(
        e["type"] for e in sender.live.get("/v3/events", params={"recipient": address, "limit": 100}).json()["items"]
    )
    assert (finals["sent"], finals["delivered"]) == (2, 2), f"{case}: events {dict(finals)}"
    activity = verification.verification_activity().activity(sender.id, address)
    counts = (activity.seen, activity.total_sends, activity.delivered, activity.bounced)
    assert counts == (True, 2, 2, 0), f"{case}: {activity}"


# -- WebhookResendFunction --------------------------------------------------------------------------

RESEND = "/v3/webhooks/deliveries/resend"


def webhook_resend(runtime: Runtime, case: str) -> None:
    api = Api(runtime.base_url, make_account().test_key)
    with Receiver(answers=[400]) as refusing, Receiver() as healthy:
        created = api.post("/v3/webhooks", json={"url": refusing.url, "events": ["delivered"]})
        assert created.status_code == 201, created.text
        hook = created.json()["id"]
        body = {"from": "hello@example.com", "to": ["delivered@simulator.postline.dev"], "subject": "s", "text": "t"}
        assert api.post("/v3/messages", json=body).status_code == 202
        runtime.drain(60)
        (failed,) = api.get(f"/v3/webhooks/{hook}/deliveries").json()["deliveries"]
        assert failed["status"] == "failed", f"{case}: {failed}"
        assert api.request("PUT", f"/v3/webhooks/{hook}", json={"url": healthy.url}).status_code == 200
        started = api.post(RESEND, json={"delivery_ids": [failed["id"]]})
        assert started.status_code == 202, started.text
        settle(runtime)
        job = api.get(f"{RESEND}/{started.json()['id']}").json()
        counts = tuple(job[k] for k in ("status", "matched", "attempted", "succeeded", "failed"))
        assert counts == ("completed", 1, 1, 1, 0), f"{case}: {job}"
        history = api.get(f"/v3/webhooks/{hook}/deliveries").json()["deliveries"]
        manual = [d for d in history if d["manual"]]
        assert [(d["resent_from"], d["status"]) for d in manual] == [(failed["id"], "succeeded")], f"{case}: {history}"
        assert healthy.requests, f"{case}: the resend never reached the endpoint"
        ids = {r.headers["X-Webhook-Delivery-Id"] for r in healthy.requests}
        assert ids == {manual[0]["id"]}, f"{case}: the receiver had {ids}"


# -- UploadsSweepFunction ---------------------------------------------------------------------------


def uploads_sweep(runtime: Runtime, case: str) -> None:
    api = Api(runtime.base_url, make_account(plan=Plan.PROFESSIONAL).live_key)
    account_id = api.get("/v3/whoami").json()["account"]["id"]
    put_verified_domain(account_id, f"up-{uuid.uuid4().hex[:10]}.test", tracked=True)  # hosted links need one
    content = base64.b64encode(b"soon").decode()
    expiring = api.post("/v3/uploads", json={"filename": "a.txt", "content": content})
    assert expiring.status_code == 201, expiring.text
    soon = now(runtime).astimezone(UTC) + timedelta(seconds=2)
    patched = api.patch(f"/v3/uploads/{expiring.json()['id']}", json={"expires_at": soon.isoformat()})
    assert patched.status_code == 200, patched.text
    arrived, never = (api.post("/v3/uploads", json={"filename": f"{n}.txt", "size_bytes": 1000}) for n in "ab")
    assert arrived.status_code == never.status_code == 201, (arrived.text, never.text)
    post = arrived.json()["upload"]
    text = b"arrived, never completed\n"
    posted = requests.post(post["url"], data=post["fields"], files={"file": ("a.txt", text)}, timeout=60)
    assert posted.status_code in (200, 204), posted.text
    settle(runtime, 3600 + 1, SCHEDULE_SECONDS)  # past the presigned POST's window, then the next run
    gone = api.get(f"/v3/uploads/{expiring.json()['id']}")
    assert gone.status_code == 410, f"{case}: {gone.text}"
    stored = uploads_root.upload_store().get_upload(account_id, expiring.json()["id"])
    assert stored is not None and uploads_root.upload_files().size(stored) is None, f"{case}: its file kept"
    settled = api.get(f"/v3/uploads/{arrived.json()['id']}").json()
    assert (settled["status"], settled["size_bytes"]) == ("ready", len(text)), f"{case}: {settled}"
    released = api.get(f"/v3/uploads/{never.json()['id']}")
    assert released.status_code == 404, f"{case}: {released.text}"
    listed = api.get("/v3/uploads").json()
    assert [item["id"] for item in listed["items"]] == [arrived.json()["id"]], f"{case}: {listed}"
    assert listed["used_bytes"] == len(text), f"{case}: {listed}"


# -- SubaccountPurgeFunction ------------------------------------------------------------------------


def subaccount_purge(runtime: Runtime, case: str) -> None:
    org = Api(runtime.base_url, make_account(plan=Plan.PROFESSIONAL, owner_email="owner@org.example").live_key)
    subs = {}
    for slug in ("acme", "globex"):
        created = org.post("/v3/subaccounts", json={"name": slug, "slug": slug})
        assert created.status_code == 201, created.text
        subs[slug] = created.json()["id"]

    def acme(method: str, path: str, **kwargs: Any) -> Any:
        return org.request(method, path, headers={"On-Behalf-Of": "acme"}, **kwargs)

    domain = acme("POST", "/v3/domains", json={"domain": f"acme-{uuid.uuid4().hex[:8]}.test"}).json()
    listed = acme("POST", "/v3/lists", json={"address": f"news@{domain['domain']}", "name": "News"}).json()
    members = [{"address": f"m{n}@example.com"} for n in range(3)]
    assert acme("POST", f"/v3/lists/{listed['id']}/members/bulk", json={"members": members}).status_code == 200
    bounces = {"type": "bounces", "entries": [{"email": f"b{n}@example.com"} for n in range(2)]}
    assert acme("POST", "/v3/suppressions/bulk", json=bounces).status_code == 200
    kept = org.request("POST", "/v3/templates", headers={"On-Behalf-Of": "globex"}, json={"name": "g", "subject": "s"})
    assert kept.status_code == 201, kept.text
    assert org.delete("/v3/subaccounts/acme").status_code == 200
    settle(runtime, SCHEDULE_SECONDS, SCHEDULE_SECONDS)  # the next run, then the one after it

    def purged() -> dict[str, Any]:
        [entry] = [e for e in org.get("/v3/audit").json()["items"] if e["action"] == "subaccount.purged"]
        return dict(entry)

    entry = eventually(purged, 60, waiting_for=f"{case}: the purge to finish")
    details = entry["details"]
    for count in ("1 domains", "4 list_members", "2 suppressions"):  # the list's item and its 3 members
        assert count in details, f"{case}: {details}"
    acme_id = subs["acme"]
    assert domains.sending_domains().list_domains(acme_id) == [], case
    assert lists.lists_store().get_list(acme_id, listed["id"]) is None, case
    assert suppressions.suppressions().suppressed(acme_id, ["b0@example.com", "b1@example.com"]) == set(), case
    sibling = org.request("GET", f"/v3/templates/{kept.json()['id']}", headers={"On-Behalf-Of": "globex"})
    assert sibling.status_code == 200, f"{case}: {sibling.text}"


WORKLOADS: dict[str, Callable[[Runtime, str], None]] = {
    "FeedbackFunction": feedback,
    "RecipientActivityFunction": recipient_activity,
    "WebhookResendFunction": webhook_resend,
    "UploadsSweepFunction": uploads_sweep,
    "SubaccountPurgeFunction": subaccount_purge,
}


@pytest.mark.parametrize("worker", sorted(WORKLOADS))
def test_a_fault_at_every_call_of_a_worker_loses_nothing_and_does_nothing_twice(runtime: Runtime, worker: str) -> None:
    sweep(worker, lambda case: WORKLOADS[worker](runtime, case), CallFault)
