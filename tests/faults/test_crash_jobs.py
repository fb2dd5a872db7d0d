"""A crash at every AWS call of the job workers, and a transient AWS error at each: every job ends
done or failed with exact counts, and nobody is mailed twice (issue 31's harness: tests/faults/crash.py).

Each worker runs a small real workload through the embedded runtime's HTTP API while its first
invocation to reach call k dies right after that call returned (or the call fails as a throttle or
a 5xx). The runtime redelivers as SQS and the stream's event source mapping would (the clock is
moved past the queues' visibility timeouts); then the workload's invariants are checked against
what it made:
- ListJobFunction: a send to a list of three members in pages of one (so its run hands the three
  pages out to page tasks, each an invocation of its own, as a list of more than two pages is
  sent): done with 3 accepted, each member mailed once (by Message-ID and recipient) with one
  final event each, member_count and the account's quota (sent this month) exact; every other run
  pay-as-you-go, its credits spent exactly 3.
- SuppressionJobFunction: a CSV import (added and skipped exact, the entries listed) and an export
  (row_count and the file's lines exact).
- ExportFunction: an event export (row_count = the events listed, the file's lines too).
- BulkVerificationFunction: a live bulk job of three addresses: completed, 3 processed, the
  credits spent exactly 3.
- MetricsRollupFunction: two sends, their events counted once in the metrics summary.
- DataRemovalFunction: an address erased after a send: done, its counts exact, nothing of it left
  in the events query.
RetentionFunction, MetricsPackingFunction, SigningKeyRotationFunction and DomainCheckFunction move the
clock by days: tests/faults/test_crash_daily.py. The other workers (feedback, recipient activity,
webhook resends, the uploads sweep, subaccount purges): tests/faults/test_crash_workers.py.

The cases come from the template: every worker it defines (test_every_worker_has_a_crash_workload)
has a workload here or in the other files of tests/faults, or a reason in NOT_COVERED. For each
worker two clean runs list its calls; `make test` then strikes a deterministic sample of them
(crash.py's sample_ks), `FAULT_FULL=1` every k with each fault (make bench-faults).
"""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
import requests
import yaml

from devtools.local.runtime import Runtime
from postline.accounts.domain import PLAN_LIMITS, Plan, QuotaSource
from postline.lists import sends
from postline.usage.domain import day_key, month_key
from postline.usage.quota import EmailLimits
from postline.wiring import lists as lists_root
from postline.wiring import operator as operator_root
from postline.wiring import usage
from tests.e2e.sending_support import iso, now, unverified_sender, verified_sender
from tests.e2e.support import Api, make_account
from tests.faults import test_crash_daily, test_crash_every_call, test_crash_webhooks, test_crash_workers
from tests.faults.crash import CallFault, sweep

pytestmark = pytest.mark.e2e
FINAL = {"delivered", "bounced", "failed", "rejected"}
REDELIVERY_SECONDS = 1000  # past the queues' visibility timeouts (960 s)
TEMPLATE = Path(__file__).resolve().parents[2] / "infra" / "template.base.yaml"


def settle(runtime: Runtime) -> None:
    runtime.drain(60)
    for _ in range(2):
        runtime.advance(REDELIVERY_SECONDS)
        runtime.drain(60)


def mailed(runtime: Runtime, subject: str) -> Counter[tuple[str | None, str]]:
    return Counter(
        (item["headers"].get("Message-ID"), rcpt)
        for item in requests.get(f"{runtime.base_url}/_local/mailbox", timeout=30).json()["items"]
        if item["headers"].get("Subject") == subject
        for rcpt in item["rcpt_tos"]
    )


_LIST_RUNS = itertools.count()


def clear_of_month_end(runtime: Runtime) -> None:
    """On to the next month when this one ends within a case's redeliveries: the quota's and the
    credits' counters are the month's (the session's clock is far along after many redeliveries)."""
    moment = now(runtime)
    following = (moment.replace(day=1) + timedelta(days=32)).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    if following - moment < timedelta(hours=3):
        runtime.advance((following - moment).total_seconds() + 60)


def list_send(runtime: Runtime, case: str) -> None:
    """Every other run pay-as-you-go: the plan's allowance spent, the pages paid with credits."""
    with pages_of_one():
        _list_send(runtime, case)


@contextmanager
def pages_of_one() -> Iterator[None]:
    """The list worker (built per invocation, in the runtime's threads) reads pages of one member."""
    kept = sends.PAGE_MEMBERS
    sends.PAGE_MEMBERS = 1
    try:
        yield
    finally:
        sends.PAGE_MEMBERS = kept


def _list_send(runtime: Runtime, case: str) -> None:
    clear_of_month_end(runtime)
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    api = sender.live
    payg = next(_LIST_RUNS) % 2 == 1
    allowance = 0
    if payg:
        moment = now(runtime)
        allowance = PLAN_LIMITS[Plan.PROFESSIONAL].monthly_emails
        unlimited = EmailLimits(None, None, test=False)
        counters = usage.counter_store()
        counters.consume_emails(sender.id, allowance, month=month_key(moment), day=day_key(moment), limits=unlimited)
        counters.grant_credits(sender.id, 5)
        operator_root.operator_service().set_quota_source(sender.id, QuotaSource.PAYG_CREDITS, "granted 5 credits")
    run = uuid.uuid4().hex[:8]
    members = [{"address": f"m{n}.{run}@example.com", "name": f"M{n}"} for n in range(3)]
    created = api.post("/v3/lists", json={"address": f"news-{run}@lists.example", "name": "News"})
    assert created.status_code == 201, created.text
    mailing_list = created.json()
    added = api.post(f"/v3/lists/{mailing_list['id']}/members/bulk", json={"members": members})
    assert added.status_code == 200, added.text
    subject = f"crash {run}"
    body = {"from": f"hello@{sender.domain}", "to": [mailing_list["address"]], "subject": subject, "text": "t"}
    response = api.post("/v3/messages", json=body)
    assert response.status_code == 202, response.text
    send_id = response.json()["list_send_id"]
    settle(runtime)
    progress = api.get(f"/v3/lists/{mailing_list['id']}/sends/{send_id}").json()
    counts = (progress["status"], progress["members"], progress["accepted"], progress["failed"])
    assert counts == ("done", 3, 3, 0), f"{case}: {progress}"
    job = lists_root.list_send_jobs().get(sender.id, send_id)
    assert job is not None and (job.handed_out, job.pages) == (3, 3), f"{case}: not by three page tasks: {job}"
    assert api.get(f"/v3/lists/{mailing_list['id']}").json()["member_count"] == 3, case
    assert sorted(mailed(runtime, subject).values()) == [1, 1, 1], f"{case}: the mail sink holds {mailed}"
    events = api.get("/v3/events", params={"limit": 100}).json()["items"]
    finals = Counter(event["recipient"] for event in events if event["type"] in FINAL)
    assert finals == Counter(m["address"] for m in members), f"{case}: final events {dict(finals)}"
    counted = api.get("/v3/usage").json()
    assert counted["emails"]["used"] == allowance + 3, f"{case}: the quota counted {counted['emails']}"
    if payg:
        assert usage.counter_store().credits(sender.id) == 2, f"{case}: credits spent but 3"


def suppression_import_export(runtime: Runtime, case: str) -> None:
    api = Api(runtime.base_url, make_account().live_key)
    rows = ["email,reason"] + [f"user{n}@example.com,row {n}" for n in range(5)] + ["not an address,oops"]
    body = {"type": "bounces", "filename": "b.csv", "csv": "\n".join(rows) + "\n"}
    response = api.post("/v3/suppressions/import", json=body)
    assert response.status_code == 202, response.text
    settle(runtime)
    job = api.get(f"/v3/suppressions/imports/{response.json()['import_id']}").json()
    assert (job["status"], job["total_rows"], job["added"], job["skipped"]) == ("done", 6, 5, 1), f"{case}: {job}"
    listed = api.get("/v3/suppressions", params={"type": "bounces", "per_page": 1}).json()["pagination"]
    assert listed["total_count"] == 5, f"{case}: {listed}"
    export = api.post("/v3/suppressions/export", json={"type": "bounces"})
    assert export.status_code == 202, export.text
    settle(runtime)
    done = api.get(f"/v3/suppressions/exports/{export.json()['export_id']}").json()
    assert (done["status"], done["row_count"]) == ("completed", 5), f"{case}: {done}"
    lines = requests.get(done["download_url"], timeout=10).text.strip().splitlines()
    assert len(lines) == 6, f"{case}: {len(lines)} lines"


def event_export(runtime: Runtime, case: str) -> None:
    sender = unverified_sender(runtime)
    api = sender.test
    for n in range(2):
        body = {"from": f"hello@{sender.domain}", "to": [f"r{n}@example.com"], "subject": "s", "text": "t"}
        assert api.post("/v3/messages", json=body).status_code == 202
    settle(runtime)
    total = api.get("/v3/events").json()["total_count"]
    assert total >= 4, f"{case}: {total} events"
    clock = now(runtime)
    window = {"since": iso(clock - timedelta(hours=1)), "until": iso(clock), "format": "csv"}
    response = api.post("/v3/events/export", json=window)
    assert response.status_code == 202, response.text
    settle(runtime)
    job = api.get(f"/v3/events/export/{response.json()['export_id']}").json()
    assert (job["status"], job["row_count"]) == ("completed", total), f"{case}: {job}"
    lines = requests.get(job["download_url"], timeout=10).text.strip().splitlines()
    assert len(lines) == total + 1, f"{case}: {len(lines)} lines"


def bulk_verification(runtime: Runtime, case: str) -> None:
    clear_of_month_end(runtime)  # the credits used are the month's
    api = Api(runtime.base_url, make_account(plan=Plan.PROFESSIONAL).live_key)
    used = api.get("/v3/usage").json()["verify_credits"]["used"]
    emails = ["valid@simulator.postline.dev", "invalid@simulator.postline.dev", "not-an-address"]
    accepted = api.post("/v3/validate/bulk", json={"emails": emails})
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]
    settle(runtime)
    job = api.get(f"/v3/validate/bulk/{job_id}").json()
    assert (job["status"], job["processed_count"], job["total_count"]) == ("completed", 3, 3), f"{case}: {job}"
    assert sum(job["summary"].values()) == 3, f"{case}: {job['summary']}"
    results = api.get(f"/v3/validate/bulk/{job_id}/results").json()
    assert sorted(item["address"] for item in results["items"]) == sorted(emails), f"{case}: {results}"
    spent = api.get("/v3/usage").json()["verify_credits"]["used"] - used
    assert spent == 3, f"{case}: {spent} credits spent"


def metrics_rollup(runtime: Runtime, case: str) -> None:
    sender = unverified_sender(runtime)
    api = sender.test
    since = iso(now(runtime) - timedelta(minutes=1))
    for n in range(2):
        body = {"from": f"hello@{sender.domain}", "to": [f"r{n}@example.com"], "subject": "s", "text": "t"}
        assert api.post("/v3/messages", json=body).status_code == 202
    settle(runtime)
    summary = api.get("/v3/metrics/summary", params={"since": since, "until": iso(now(runtime))}).json()
    delivery = summary["delivery"]
    assert (delivery["sent"], delivery["delivered"], delivery["bounced"]) == (2, 2, 0), f"{case}: {delivery}"


def data_removal(runtime: Runtime, case: str) -> None:
    sender = verified_sender(runtime)
    address = f"erase.{uuid.uuid4().hex[:10]}@example.com"
    body = {"from": f"hello@{sender.domain}", "to": [address], "subject": "s", "text": "t"}
    sent = sender.live.post("/v3/messages", json=body)
    assert sent.status_code == 202, sent.text
    settle(runtime)
    listed = sender.live.get("/v3/events", params={"recipient": address, "limit": 100}).json()["total_count"]
    started = sender.live.post("/v3/data-removals", json={"email": address})
    assert started.status_code == 202, started.text
    settle(runtime)
    done = sender.live.get(f"/v3/data-removals/{started.json()['removal_id']}").json()
    assert done["status"] == "done", f"{case}: {done}"
    counts = done["counts"]
    assert (counts["messages"], counts["events"], counts["already_erased"]) == (1, listed, False), f"{case}: {done}"
    left = sender.live.get("/v3/events", params={"recipient": address, "limit": 100}).json()
    assert left["total_count"] == 0, f"{case}: {left}"
    shown = sender.live.get(f"/v3/messages/{sent.json()['id']}").json()
    assert address not in str(shown), f"{case}: {shown}"


WORKLOADS: dict[str, Callable[[Runtime, str], None]] = {
    "ListJobFunction": list_send,
    "SuppressionJobFunction": suppression_import_export,
    "ExportFunction": event_export,
    "BulkVerificationFunction": bulk_verification,
    "MetricsRollupFunction": metrics_rollup,
    "DataRemovalFunction": data_removal,
}
# Workers without a crash workload, each with its reason.
NOT_COVERED = {
    # Its one AWS call is a read (cognito-idp.DescribeUserPoolClient, the app client's name, cached per
    # instance): dying after it is dying before it, it writes nothing, and Cognito retries a failed
    # trigger. The embedded runtime has no user pool to invoke it (Condition: UseCognito).
    "ConsoleClaimsFunction": "Cognito's sign-in trigger: one cached read, no write, and Cognito retries it",
}


def template_workers() -> set[str]:
    """The template's workers: its functions whose code is under functions/workers/ (the API's are
    generated from the route table), and the relay task."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    resources = yaml.load(TEMPLATE.read_text(), Loader=Loader)["Resources"]  # noqa: S506 (SafeLoader's subclass)
    functions = {
        logical_id
        for logical_id, resource in resources.items()
        if resource["Type"] == "AWS::Serverless::Function" and resource["Properties"]["CodeUri"] == "functions/workers/"
    }
    return functions | {"RelayTask"}


def test_every_worker_has_a_crash_workload() -> None:
    covered = [
        *test_crash_every_call.WORKERS,
        *test_crash_webhooks.WORKERS,
        *WORKLOADS,
        *test_crash_daily.WORKLOADS,
        *test_crash_workers.WORKLOADS,
    ]
    assert len(covered) == len(set(covered))
    assert set(covered) | set(NOT_COVERED) == template_workers(), "a worker without its crash workload"
    assert not set(covered) & set(NOT_COVERED)


@pytest.mark.parametrize("worker", sorted(WORKLOADS))
def test_a_fault_at_every_call_of_a_job_worker_keeps_its_counts_exact(runtime: Runtime, worker: str) -> None:
    sweep(worker, lambda case: WORKLOADS[worker](runtime, case), CallFault)
