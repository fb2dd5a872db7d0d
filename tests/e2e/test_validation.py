"""POST /v3/validate end to end: the embedded runtime (a `python -m devtools.local` child) asks a
real DNS server (devtools/local/dns_server.py), probes a real SMTP server on 127.0.0.1 that is the
MX of three domains (tests/peers/probe_mx.py: one accepts every RCPT, one refuses unknown users
with 550, one greylists with 451) and asks a real RDAP server over HTTPS (tests/peers/rdap_server.py).

The exact ValidationResult of each kind of domain; the catch-all answer cached per domain; 402 at
zero credits with nothing asked of DNS or SMTP; test keys answered from their weights and the
simulator addresses with no network; the 101st call of a minute 429 with Retry-After.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from nacl.signing import VerifyKey

from devtools.local.dns_server import MX, NULL_MX, A, DnsServer
from tests.certs import TestCa
from tests.conftest import RuntimeProcess, Spawn
from tests.e2e.support import Api
from tests.peers.probe_mx import MX_HOST, PolicyMx, policy_servers
from tests.peers.rdap_server import RdapServer
from tests.peers.webhook_receiver import Received, Receiver

pytestmark = pytest.mark.e2e

REGISTERED = {
    "strict.test": datetime(2015, 3, 1, tzinfo=UTC),
    "catchall.test": datetime(2020, 6, 15, tzinfo=UTC),
    "bare.test": datetime(2019, 1, 1, tzinfo=UTC),
}
NO_ACTIVITY = {
    "seen": False,
    "first_seen_at": None,
    "last_seen_at": None,
    "total_sends": 0,
    "delivered": 0,
    "bounced": 0,
    "opened": 0,
    "clicked": 0,
    "complained": 0,
    "unsubscribed": 0,
}


@dataclass
class Stack:
    child: RuntimeProcess
    live: Api
    test: Api
    dns: DnsServer
    catch_all: PolicyMx
    strict: PolicyMx
    greylist: PolicyMx
    rdap: RdapServer
    dynamodb: Any
    counters_table: str

    def now(self) -> datetime:
        response = self.live.post("/_local/clock/advance", json={"seconds": 0})
        assert response.status_code == 200, response.text
        return datetime.fromisoformat(response.json()["now"])

    def advance(self, seconds: float) -> datetime:
        response = self.live.post("/_local/clock/advance", json={"seconds": seconds})
        assert response.status_code == 200, response.text
        return datetime.fromisoformat(response.json()["now"])

    def validate(self, email: str, api: Api | None = None) -> dict[str, Any]:
        response = (api or self.live).post("/v3/validate", json={"email": email})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert body.pop("verification_id").startswith("ver_")
        return body

    def rcpts(self) -> int:
        return sum(len(server.rcpts) for server in (self.catch_all, self.strict, self.greylist))

    def set_verify_used(self, used: int) -> None:
        account_id = self.child.dev["account_id"]
        month = self.now().strftime("%Y-%m")
        self.dynamodb.update_item(
            TableName=self.counters_table,
            Key={"pk": {"S": f"USAGE#{account_id}"}, "sk": {"S": f"M#{month}"}},
            UpdateExpression="SET verify = :n",
            ExpressionAttributeValues={":n": {"N": str(used)}},
        )


@pytest.fixture(scope="module")
def stack(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    state_dir: Path = tmp_path_factory.mktemp("validation-state")
    ca = TestCa.create("RDAP test CA")
    bundle = tmp_path_factory.mktemp("rdap-ca") / "ca.pem"
    bundle.write_text(ca.pem)
    catch_all, strict, greylist = (
        PolicyMx("accept_all"),
        PolicyMx("known_users", frozenset({"ada"})),
        PolicyMx("greylist"),
    )
    served = {
        "catchall.test": catch_all,
        "strict.test": strict,
        "greylist.test": greylist,
        "bare.test": strict,
        "regdown.test": strict,
    }
    with DnsServer() as dns, policy_servers(served) as port, RdapServer(ca, REGISTERED) as rdap:
        for domain in ("catchall.test", "strict.test", "greylist.test", "regdown.test"):
            dns.add(domain, MX(10, f"mx.{domain}"))
            dns.add(f"mx.{domain}", A(MX_HOST))
        dns.add("bare.test", A(MX_HOST))  # no MX: the domain's own address takes its mail
        dns.add("nomail.test", NULL_MX)
        flags = [
            *("--parameter", f"DnsResolver={dns.address}"),
            *("--parameter", f"SmtpMxPort={port}"),
            *("--parameter", f"RdapBaseUrl={rdap.base_url}"),
            *("--parameter", f"RdapCaBundle={bundle}"),
        ]
        with spawn(state_dir, *flags) as child:
            aws = child.dev["aws"]
            dynamodb = boto3.client(
                "dynamodb",
                endpoint_url=aws["endpoint_url"],
                region_name="us-east-1",
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
            )
            yield Stack(
                child,
                child.api(child.dev["keys"]["live"]),
                child.api(child.dev["keys"]["test"]),
                dns,
                catch_all,
                strict,
                greylist,
                rdap,
                dynamodb,
                aws["env"]["COUNTERS_TABLE"],
            )
            assert child.stop() == 0, "".join(child.output)


def age(stack: Stack, domain: str) -> int:
    return (stack.now() - REGISTERED[domain]).days


def test_a_mailbox_the_server_knows_is_valid(stack: Stack) -> None:
    result = stack.validate("ada@strict.test")
    assert result == {
        "address": "ada@strict.test",
        "is_valid": True,
        "result": "valid",
        "status": "valid",
        "sub_status": "",
        "recommendation": "mail",
        "confidence": 0.95,
        "risk": "low",
        "reason": "strict.test's mail server accepted the mailbox (mx.strict.test answered RCPT TO with 250 2.1.5 OK)",
        "did_you_mean": None,
        "account": "ada",
        "domain": "strict.test",
        "mx_provider": None,
        "mx_record": "mx.strict.test",
        "mx_found": True,
        "is_catch_all": False,
        "is_disposable": False,
        "is_role_address": False,
        "is_free_provider": False,
        "smtp_check": True,
        "domain_age_days": age(stack, "strict.test"),
        "activity": NO_ACTIVITY,
    }
    # RCPT TO the address, then a random one at the domain (refused: not a catch-all); never DATA.
    [(asked, _), (random, refused)] = stack.strict.rcpts[-2:]
    assert asked == "ada@strict.test" and random.endswith("@strict.test") and refused.startswith("550")
    assert stack.strict.data_sessions == 0


def test_an_unknown_user_is_invalid(stack: Stack) -> None:
    result = stack.validate("nobody@strict.test")
    assert result == {
        "address": "nobody@strict.test",
        "is_valid": False,
        "result": "invalid",
        "status": "invalid",
        "sub_status": "mailbox_not_found",
        "recommendation": "suppress",
        "confidence": 0.95,
        "risk": "undeliverable",
        "reason": "strict.test's mail server refused the mailbox (mx.strict.test answered RCPT TO with 550 5.1.1 "
        "<nobody@strict.test>: Recipient address rejected: User unknown)",
        "did_you_mean": None,
        "account": "nobody",
        "domain": "strict.test",
        "mx_provider": None,
        "mx_record": "mx.strict.test",
        "mx_found": True,
        "is_catch_all": False,
        "is_disposable": False,
        "is_role_address": False,
        "is_free_provider": False,
        "smtp_check": False,
        "domain_age_days": age(stack, "strict.test"),
        "activity": NO_ACTIVITY,
    }


def test_a_server_that_accepts_everyone_is_a_catch_all_cached_per_domain(stack: Stack) -> None:
    result = stack.validate("ada@catchall.test")
    assert result == {
        "address": "ada@catchall.test",
        "is_valid": False,
        "result": "catch_all",
        "status": "catch_all",
        "sub_status": "accept_all",
        "recommendation": "caution",
        "confidence": 0.5,
        "risk": "medium",
        "reason": "catchall.test's mail server accepts every address, so this one cannot be confirmed "
        "(mx.catchall.test answered RCPT TO with 250 2.1.5 OK)",
        "did_you_mean": None,
        "account": "ada",
        "domain": "catchall.test",
        "mx_provider": None,
        "mx_record": "mx.catchall.test",
        "mx_found": True,
        "is_catch_all": True,
        "is_disposable": False,
        "is_role_address": False,
        "is_free_provider": False,
        "smtp_check": True,
        "domain_age_days": age(stack, "catchall.test"),
        "activity": NO_ACTIVITY,
    }
    asked = len(stack.catch_all.rcpts)
    again = stack.validate("bob@catchall.test")
    assert (again["status"], again["is_catch_all"]) == ("catch_all", True)
    assert len(stack.catch_all.rcpts) == asked  # cached: no second SMTP dialogue with the domain
    assert stack.catch_all.data_sessions == 0


def test_greylisting_is_unknown_and_an_unregistered_domain_has_no_age(stack: Stack) -> None:
    result = stack.validate("ada@greylist.test")
    assert result == {
        "address": "ada@greylist.test",
        "is_valid": False,
        "result": "unknown",
        "status": "unknown",
        "sub_status": "greylisted",
        "recommendation": "review",
        "confidence": 0.4,
        "risk": "medium",
        "reason": "greylist.test's mail server deferred the check (greylisting or a temporary failure) "
        "(mx.greylist.test answered RCPT TO with 451 4.7.1 Greylisted, please try again later); "
        "domain age unknown: the registry answered 404 for greylist.test",
        "did_you_mean": None,
        "account": "ada",
        "domain": "greylist.test",
        "mx_provider": None,
        "mx_record": "mx.greylist.test",
        "mx_found": True,
        "is_catch_all": False,
        "is_disposable": False,
        "is_role_address": False,
        "is_free_provider": False,
        "smtp_check": None,
        "domain_age_days": None,
        "activity": NO_ACTIVITY,
    }


def test_no_mx_probes_the_domains_own_address_and_a_null_mx_is_invalid(stack: Stack) -> None:
    bare = stack.validate("info@bare.test")
    assert (bare["status"], bare["sub_status"], bare["recommendation"], bare["mx_found"], bare["mx_record"]) == (
        "invalid",
        "mailbox_not_found",  # bare.test's address is the strict server, which knows only ada
        "suppress",
        True,
        None,
    )
    assert bare["is_role_address"] is True
    assert stack.strict.rcpts[-1][0] == "info@bare.test"
    null = stack.validate("ada@nomail.test")
    assert (null["status"], null["sub_status"], null["mx_found"], null["smtp_check"]) == (
        "invalid",
        "null_mx",
        False,
        None,
    )
    assert (
        null["reason"]
        == "nomail.test accepts no mail (null MX); domain age unknown: the registry answered 404 for nomail.test"
    )


def test_the_registry_is_asked_once_per_domain(stack: Stack) -> None:
    stack.validate("ada@strict.test")
    assert stack.rdap.asked.count("strict.test") == 1


def test_a_registry_that_is_down_is_asked_again_only_after_an_hour(stack: Stack) -> None:
    stack.rdap.failing.add("regdown.test")
    first = stack.validate("ada@regdown.test")
    assert first["domain_age_days"] is None and first["status"] == "valid"
    assert first["reason"].endswith("domain age unknown: the registry answered 503 for regdown.test")
    assert stack.rdap.asked.count("regdown.test") == 1
    stack.advance(59 * 60)
    second = stack.validate("ada@regdown.test")
    assert (second["domain_age_days"], second["reason"]) == (None, first["reason"])
    assert stack.rdap.asked.count("regdown.test") == 1  # within the hour: the kept failure
    stack.rdap.failing.discard("regdown.test")
    stack.rdap.registered["regdown.test"] = stack.now() - timedelta(days=400)
    stack.advance(2 * 60)
    third = stack.validate("ada@regdown.test")
    assert stack.rdap.asked.count("regdown.test") == 2  # the hour is over: asked again
    assert third["domain_age_days"] == 400 and "domain age unknown" not in str(third["reason"])


def test_an_address_that_complained_about_the_account_is_abuse(stack: Stack) -> None:
    added = stack.live.post("/v3/suppressions", json={"type": "complaints", "email": "Grumpy@strict.test"})
    assert added.status_code == 201, added.text
    rcpts = stack.rcpts()
    result = stack.validate("grumpy@strict.test")
    assert (result["status"], result["sub_status"], result["recommendation"], result["smtp_check"]) == (
        "abuse",
        "known_complainer",
        "suppress",
        None,
    )
    assert result["reason"] == (
        "grumpy@strict.test marked this account's mail as spam before (it is on the account's complaints list)"
    )
    assert stack.rcpts() == rcpts  # its mailbox was not asked


def test_a_live_key_without_credits_gets_402_and_nothing_is_checked(stack: Stack) -> None:
    usage = stack.live.get("/v3/usage").json()["verify_credits"]
    assert usage["used"] >= 1  # the checks above each took a credit
    stack.set_verify_used(usage["limit"])
    try:
        queries, rcpts = len(stack.dns.queries), stack.rcpts()
        response = stack.live.post("/v3/validate", json={"email": "ada@strict.test"})
        assert response.status_code == 402, response.text
        body = response.json()
        assert body["error"]["code"] == "insufficient_credits" and body["request_id"]
        assert (len(stack.dns.queries), stack.rcpts()) == (queries, rcpts)
        assert stack.live.get("/v3/usage").json()["verify_credits"]["remaining"] == 0
    finally:
        stack.set_verify_used(usage["used"])


def test_test_keys_answer_from_weights_and_simulator_addresses_without_network(stack: Stack) -> None:
    created = stack.live.post(
        "/v3/keys", json={"name": "verify-ci", "env": "test", "test_outcomes": {"verify": {"catch_all": 1}}}
    )
    assert created.status_code == 201, created.text
    weighted = Api(stack.child.dev["base_url"], created.json()["key"])
    queries, rcpts = len(stack.dns.queries), stack.rcpts()
    used = stack.live.get("/v3/usage").json()["verify_credits"]["used"]

    drawn = stack.validate("ada@strict.test", weighted)
    assert (drawn["status"], drawn["is_catch_all"], drawn["smtp_check"]) == ("catch_all", True, True)
    assert drawn["reason"] == "simulated: catch_all"
    simulated = stack.validate("spamtrap@simulator.postline.dev", weighted)
    assert (simulated["status"], simulated["recommendation"]) == ("spamtrap", "suppress")
    default = stack.validate("ada@greylist.test", stack.test)
    assert default["status"] == "valid"  # the dev test key's default weights: valid

    assert (len(stack.dns.queries), stack.rcpts()) == (queries, rcpts)
    assert stack.live.get("/v3/usage").json()["verify_credits"]["used"] == used  # no credit spent


def test_the_101st_call_in_a_minute_is_429_with_retry_after(stack: Stack) -> None:
    now = stack.now()
    stack.advance(60 - now.second - now.microsecond / 1_000_000 + 0.5)  # a fresh window
    for _ in range(100):
        response = stack.test.post("/v3/validate", json={"email": "ada@simulator.postline.dev"})
        assert response.status_code == 200, response.text
    refused = stack.test.post("/v3/validate", json={"email": "ada@simulator.postline.dev"})
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    stack.advance(int(refused.headers["Retry-After"]))
    assert stack.test.post("/v3/validate", json={"email": "ada@simulator.postline.dev"}).status_code == 200


def test_activity_is_the_recipients_history_kept_from_the_event_stream(stack: Stack) -> None:
    to = "pat@catchall.test"
    assert stack.validate(to)["activity"] == NO_ACTIVITY
    for subject in ("Your order", "Your invoice"):
        sent = stack.live.post(
            "/v3/messages",
            json={"from": "Acme <news@postline.test>", "to": [to], "subject": subject, "text": "Hello."},
        )
        assert sent.status_code == 202, sent.text
    drained = stack.live.post("/_local/drain", json={"timeout": 30})
    assert drained.status_code == 200, drained.text
    activity = stack.validate("Pat@CatchAll.test")["activity"]
    assert (activity["seen"], activity["total_sends"], activity["delivered"], activity["bounced"]) == (True, 2, 2, 0)
    assert activity["first_seen_at"] <= activity["last_seen_at"]


# --- bulk jobs ------------------------------------------------------------------------------------


def test_a_live_bulk_job_runs_on_the_queue_with_exact_counts_credits_and_dns(stack: Stack) -> None:
    lists = {"strict.test": 40, "catchall.test": 40, "greylist.test": 20, "nomail.test": 10}
    emails = [f"bulk{n}@{domain}" for domain, count in lists.items() for n in range(count)]
    emails += [e.upper() for e in emails[:15]]  # duplicates, answered once
    used = stack.live.get("/v3/usage").json()["verify_credits"]["used"]
    mx_queries = len([q for q in stack.dns.queries if q.type == "MX"])

    accepted = stack.live.post("/v3/validate/bulk", json={"emails": emails})
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]
    assert (accepted.json()["status"], accepted.json()["total_count"]) == ("queued", 110)
    drained = stack.live.post("/_local/drain", json={"timeout": 60})
    assert drained.status_code == 200, drained.text

    job = stack.live.get(f"/v3/validate/bulk/{job_id}").json()
    assert (job["status"], job["processed_count"], job["total_count"], job["can_retry"]) == (
        "completed",
        110,
        110,
        False,
    )
    assert job["summary"] == {
        "valid": 0,
        "invalid": 50,  # strict.test's unknown users and nomail.test's null MX
        "catch_all": 40,
        "unknown": 20,
        "do_not_mail": 0,
        "spamtrap": 0,
        "abuse": 0,
    }
    assert stack.live.get("/v3/usage").json()["verify_credits"]["used"] == used + 110
    # MX asked once per distinct domain (the worker's per-domain cache), not once per address.
    bulk_mx = [q.name for q in stack.dns.queries[:] if q.type == "MX"][mx_queries:]
    assert sorted(bulk_mx) == sorted(lists)
    page = stack.live.get(f"/v3/validate/bulk/{job_id}/results", params={"page": 2, "limit": 40}).json()
    assert (page["total"], page["page"], page["limit"], len(page["items"])) == (110, 2, 40, 40)
    assert [item["address"] for item in page["items"][:1]] == ["bulk0@catchall.test"]
    assert {item["status"] for item in page["items"]} == {"catch_all"}


def test_a_test_mode_bulk_job_completes_in_the_request(stack: Stack) -> None:
    emails = ["valid@simulator.postline.dev", "do_not_mail@simulator.postline.dev", "nope"]
    accepted = stack.test.post("/v3/validate/bulk", json={"emails": emails})
    assert accepted.status_code == 202, accepted.text
    assert (accepted.json()["status"], accepted.json()["total_count"]) == ("completed", 3)
    job = stack.test.get(f"/v3/validate/bulk/{accepted.json()['job_id']}").json()
    assert (job["summary"]["valid"], job["summary"]["do_not_mail"], job["summary"]["invalid"]) == (1, 1, 1)


def ed25519_valid(stack: Stack, request: Received) -> bool:
    """The webhooks' verifier, unchanged: the header, the key set, PyNaCl."""
    parts = dict(part.split("=", 1) for part in request.headers["Svc-Signature-Ed25519"].split(","))
    keys = stack.live.get("/.well-known/svc/keys").json()["keys"]
    (jwk,) = [key for key in keys if key["kid"] == parts["kid"]]
    raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
    VerifyKey(raw).verify(f"{parts['t']}.".encode() + request.body, base64.b64decode(parts["v1"]))
    return True


def bounces(stack: Stack, prefix: str) -> dict[str, dict[str, Any]]:
    response = stack.live.get("/v3/suppressions", params={"type": "bounces", "email": prefix, "per_page": 100})
    assert response.status_code == 200, response.text
    return {item["email"]: item for item in response.json()["items"]}


def test_a_completed_live_job_suppresses_the_undeliverable_and_posts_a_signed_webhook(stack: Stack) -> None:
    emails = ["ada@strict.test", "sup1@strict.test", "sup2@catchall.test", "Sup3@nomail.test", "sup4@greylist.test"]
    stack.live.post("/v3/suppressions", json={"type": "bounces", "email": "sup1@strict.test", "reason": "mine"})
    with Receiver() as receiver:
        body = {"emails": emails, "webhook_url": receiver.url, "suppress": True}
        accepted = stack.live.post("/v3/validate/bulk", json=body)
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["job_id"]
        assert stack.live.post("/_local/drain", json={"timeout": 60}).status_code == 200
        (request,) = receiver.wait_for(1)
        assert ed25519_valid(stack, request)
        assert request.headers["X-Webhook-Event-Id"] == f"{job_id}.completed"
        payload = json.loads(request.body)
        job = stack.live.get(f"/v3/validate/bulk/{job_id}").json()
        assert payload == {"event": "verification.completed", "job": job, "results_path": payload["results_path"]}
        assert payload["results_path"] == f"/v3/validate/bulk/{job_id}/results"
        assert (job["status"], job["webhook_url"], job["summary"]["invalid"]) == ("completed", receiver.url, 2)
        # Only strict.test's unknown user and the null-MX domain are undeliverable; an address
        # already listed keeps its entry (source manual, its reason).
        listed = bounces(stack, "sup")
        assert sorted(listed) == ["sup1@strict.test", "sup3@nomail.test"]
        assert (listed["sup1@strict.test"]["source"], listed["sup1@strict.test"]["reason"]) == ("manual", "mine")
        assert listed["sup3@nomail.test"]["source"] == "verification"
        assert listed["sup3@nomail.test"]["reason"] == f"verification {job_id}: invalid/null_mx"
        assert bounces(stack, "ada@strict") == {}
        stack.advance(3600)
        stack.live.post("/_local/drain", json={"timeout": 30})
        assert len(receiver.requests) == 1  # answered 200: no retry


def test_a_test_mode_job_posts_its_webhook_and_cannot_suppress(stack: Stack) -> None:
    with Receiver(answers=[503, 200]) as receiver:
        body = {"emails": ["valid@simulator.postline.dev"], "webhook_url": receiver.url}
        accepted = stack.test.post("/v3/validate/bulk", json=body)
        assert accepted.status_code == 202, accepted.text
        assert accepted.json()["status"] == "completed"
        stack.live.post("/_local/drain", json={"timeout": 30})
        receiver.wait_for(1)
        stack.advance(31)  # the webhooks' schedule: the second attempt 30 s after the first
        stack.live.post("/_local/drain", json={"timeout": 30})
        first, second = receiver.wait_for(2)
        assert first.body == second.body and ed25519_valid(stack, second)
        assert (first.headers["X-Webhook-Attempt"], second.headers["X-Webhook-Attempt"]) == ("1", "2")
        assert json.loads(second.body)["job"]["summary"]["valid"] == 1
    refused = stack.test.post("/v3/validate/bulk", json={"emails": ["a@b.test"], "suppress": True})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "validation_error"
    bad = stack.test.post("/v3/validate/bulk", json={"emails": ["a@b.test"], "webhook_url": "ftp://x.test/"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "validation_error"


def test_a_completed_job_s_signed_file_round_trips_and_a_tampered_one_is_caught(stack: Stack) -> None:
    emails = [f"proof{n}@strict.test" for n in range(3)] + ["ada@strict.test", "p@nomail.test"]
    accepted = stack.live.post("/v3/validate/bulk", json={"emails": emails})
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]
    assert stack.live.post("/_local/drain", json={"timeout": 60}).status_code == 200
    assert stack.live.get(f"/v3/validate/bulk/{job_id}").json()["status"] == "completed"

    response = stack.live.get(f"/v3/validate/bulk/{job_id}/file")
    assert response.status_code == 200, response.text
    file = response.json()
    assert (file["job_id"], file["rows"], file["registry"]) == (job_id, 5, "postline:verification-proofs:v1")
    assert datetime.fromisoformat(file["issued"]) <= stack.now()
    download = requests.get(file["download_url"], timeout=10)
    assert download.status_code == 200, download.text
    content = download.content
    assert (len(content), hashlib.sha256(content).hexdigest()) == (file["size_bytes"], file["fingerprint"])
    rows = list(csv.reader(io.StringIO(content.decode())))
    assert [row[:2] for row in rows[1:]] == [
        ["proof0@strict.test", "invalid"],
        ["proof1@strict.test", "invalid"],
        ["proof2@strict.test", "invalid"],
        ["ada@strict.test", "valid"],
        ["p@nomail.test", "invalid"],
    ]

    # A third party, offline: the key set, PyNaCl, "postline-proof.v1." + the fingerprint.
    keys = stack.live.get("/.well-known/svc/keys").json()["keys"]
    (jwk,) = [key for key in keys if key["kid"] == file["kid"]]
    raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
    VerifyKey(raw).verify(b"postline-proof.v1." + file["fingerprint"].encode(), base64.b64decode(file["signature"]))

    def verify(body: dict[str, str]) -> dict[str, Any]:
        answer = stack.test.post("/v3/validate/proofs/verify", json=body)  # any key may check a proof
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    good = verify({"file": content.decode()})
    assert good == {
        "verified": True,
        "signature": "valid",
        "fingerprint": "matches",
        "registry": "postline:verification-proofs:v1",
        "issued": file["issued"],
    }
    assert verify({"fingerprint": file["fingerprint"], "signature": file["signature"]}) == good
    tampered = content.decode().replace('"ada@strict.test","valid"', '"ada@strict.test","invalid"')
    claim = {"fingerprint": file["fingerprint"], "signature": file["signature"]}
    assert verify({"file": tampered, **claim}) | {"issued": None} == {
        "verified": False,
        "signature": "valid",
        "fingerprint": "mismatch",
        "registry": "postline:verification-proofs:v1",
        "issued": None,
    }
    unknown = verify({"file": tampered})
    assert (unknown["verified"], unknown["fingerprint"], unknown["signature"]) == (False, "unknown", "unverified")
    assert verify({"fingerprint": "0" * 64})["fingerprint"] == "unknown"
    forged = bytearray(base64.b64decode(file["signature"]))
    forged[10] ^= 0x80
    bad = verify({"fingerprint": file["fingerprint"], "signature": base64.b64encode(bytes(forged)).decode()})
    assert (bad["verified"], bad["fingerprint"], bad["signature"]) == (False, "matches", "invalid")
    empty = stack.live.post("/v3/validate/proofs/verify", json={"signature": file["signature"]})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "validation_error"

    test_job = stack.test.post("/v3/validate/bulk", json={"emails": ["valid@simulator.postline.dev"]}).json()
    none = stack.test.get(f"/v3/validate/bulk/{test_job['job_id']}/file")
    assert none.status_code == 404 and none.json()["error"]["code"] == "not_found"


def test_a_deleted_job_is_deleted_and_its_results_gone(stack: Stack) -> None:
    accepted = stack.live.post("/v3/validate/bulk", json={"emails": ["del1@strict.test", "del2@strict.test"]})
    job_id = accepted.json()["job_id"]
    assert stack.live.post("/_local/drain", json={"timeout": 60}).status_code == 200
    assert stack.live.get(f"/v3/validate/bulk/{job_id}/results").json()["total"] == 2
    deleted = stack.live.delete(f"/v3/validate/bulk/{job_id}")
    assert deleted.status_code == 200, deleted.text
    assert (deleted.json()["status"], deleted.json()["processed_count"]) == ("deleted", 2)
    assert stack.live.get(f"/v3/validate/bulk/{job_id}").json()["status"] == "deleted"
    gone = stack.live.get(f"/v3/validate/bulk/{job_id}/results")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"
    assert stack.live.post("/_local/drain", json={"timeout": 60}).status_code == 200
    account = stack.child.dev["account_id"]
    left = stack.dynamodb.query(
        TableName=stack.child.dev["aws"]["env"]["JOBS_TABLE"],
        KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues={":pk": {"S": f"JOB#{account}"}, ":prefix": {"S": f"VERIFY#{job_id}"}},
    )["Items"]
    assert [item["sk"]["S"] for item in left] == [f"VERIFY#{job_id}"]  # the job alone: chunks and results removed


def test_the_11th_bulk_job_in_a_minute_is_429(stack: Stack) -> None:
    now = stack.now()
    stack.advance(60 - now.second - now.microsecond / 1_000_000 + 0.5)  # a fresh window
    for _ in range(10):
        ok = stack.test.post("/v3/validate/bulk", json={"emails": ["valid@simulator.postline.dev"]})
        assert ok.status_code == 202, ok.text
    refused = stack.test.post("/v3/validate/bulk", json={"emails": ["valid@simulator.postline.dev"]})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60


def test_a_list_evaluation_spends_nothing_and_asks_no_one(stack: Stack) -> None:
    used = stack.live.get("/v3/usage").json()["verify_credits"]["used"]
    queries, rcpts = len(stack.dns.queries), stack.rcpts()
    emails = ["ada@strict.test", "Ada@Strict.test", "info@strict.test", "bob@gmial.com", "nope"]
    response = stack.live.post("/v3/validate/evaluate", json={"emails": emails})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["total_count"], body["unique_count"], body["duplicate_count"]) == (5, 4, 1)
    assert (body["syntax_errors"]["count"], body["role_based"]["count"], body["typo_detected"]["count"]) == (1, 1, 1)
    assert body["recommendation"] == "poor" and body["sample_size"] == 4
    assert stack.live.get("/v3/usage").json()["verify_credits"]["used"] == used
    assert (len(stack.dns.queries), stack.rcpts()) == (queries, rcpts)


def test_a_csv_file_put_to_the_presigned_url_is_read_by_the_worker_with_exact_counts(stack: Stack) -> None:
    now = stack.now()
    stack.advance(60 - now.second - now.microsecond / 1_000_000 + 0.5)  # a fresh window of bulk jobs
    used = stack.live.get("/v3/usage").json()["verify_credits"]["used"]
    rows = ["Name,Company,EMAIL"]
    rows += [f'"Catch {n}","Acme, Inc.",csv{n}@catchall.test' for n in range(100)]
    rows += [f"Strict {n},Beta,csv{n}@strict.test" for n in range(99)] + ["Ada,Beta,ada@strict.test"]
    rows += [f"Grey {n},Gamma,csv{n}@greylist.test" for n in range(50)]
    rows += [f"None {n},Delta,csv{n}@nomail.test" for n in range(20)]
    rows.insert(150, "Nobody,Beta,")  # file row 151: no address
    rows += ["Again,Acme,CSV7@CATCHALL.TEST"]  # a repeat, answered once

    accepted = stack.live.post("/v3/validate/bulk", json={"filename": "crm-export.csv"})
    assert accepted.status_code == 202, accepted.text
    body = accepted.json()
    assert (body["status"], body["total_count"]) == ("uploading", 0) and body["upload_expires_at"]
    path = f"/v3/validate/bulk/{body['job_id']}"
    assert stack.live.get(path).json()["status"] == "uploading"
    put = requests.put(
        body["upload_url"], data="\r\n".join(rows).encode(), headers={"Content-Type": "text/csv"}, timeout=30
    )
    assert put.status_code == 200, put.text
    assert stack.live.get(path).json()["status"] == "pending"  # this poll found the file and queued it
    drained = stack.live.post("/_local/drain", json={"timeout": 60})
    assert drained.status_code == 200, drained.text

    job = stack.live.get(path).json()
    assert (job["status"], job["filename"], job["total_count"], job["processed_count"]) == (
        "completed",
        "crm-export.csv",
        270,
        270,
    )
    assert (job["skipped"], job["errors"]) == (1, [{"row": 151, "email": "", "reason": "missing_email"}])
    assert job["summary"] == {
        "valid": 1,  # ada@strict.test
        "invalid": 119,  # strict.test's unknown users and nomail.test's null MX
        "catch_all": 100,
        "unknown": 50,
        "do_not_mail": 0,
        "spamtrap": 0,
        "abuse": 0,
    }
    assert stack.live.get("/v3/usage").json()["verify_credits"]["used"] == used + 270
    first = stack.live.get(f"{path}/results", params={"page": 1, "limit": 2}).json()["items"]
    assert [item["address"] for item in first] == ["csv0@catchall.test", "csv1@catchall.test"]
    assert stack.live.get(f"{path}/file").status_code == 200  # signed like any completed job's


def postline(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """`postline ARGS` as a developer runs it against this runtime (devtools.cli finds its dev.json)."""
    code = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    return subprocess.run(
        [sys.executable, "-m", "devtools.cli", "--state-dir", str(stack.child.state_dir), *args],
        env={"PATH": "/usr/bin:/bin", **code},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_the_operator_resumes_a_paused_job_at_once(stack: Stack) -> None:
    now = stack.now()
    stack.advance(60 - now.second - now.microsecond / 1_000_000 + 0.5)  # a fresh window of bulk jobs
    usage = stack.live.get("/v3/usage").json()["verify_credits"]
    account_id = stack.child.dev["account_id"]
    stack.set_verify_used(usage["limit"] - 5)
    try:
        emails = [f"resume{n}@strict.test" for n in range(12)]
        accepted = stack.live.post("/v3/validate/bulk", json={"emails": emails})
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["job_id"]
        assert stack.live.post("/_local/drain", json={"timeout": 60}).status_code == 200
        paused = stack.live.get(f"/v3/validate/bulk/{job_id}").json()
        assert (paused["status"], paused["processed_count"]) == ("paused", 5)

        refused = postline(stack, "verify", "resume", account_id, job_id)
        assert refused.returncode == 1 and "no verification credits left" in refused.stderr, refused.stderr
        stack.set_verify_used(usage["limit"] - 20)  # credits added
        done = postline(stack, "verify", "resume", account_id, job_id)
        assert done.returncode == 0, done.stderr
        assert (json.loads(done.stdout)["status"], json.loads(done.stdout)["processed_count"]) == ("processing", 5)
        assert stack.live.post("/_local/drain", json={"timeout": 60}).status_code == 200  # no 15-minute wait
        job = stack.live.get(f"/v3/validate/bulk/{job_id}").json()
        assert (job["status"], job["processed_count"], job["summary"]["invalid"]) == ("completed", 12, 12)
        assert stack.live.get("/v3/usage").json()["verify_credits"]["used"] == usage["limit"] - 20 + 7
        again = postline(stack, "verify", "resume", account_id, job_id)
        assert again.returncode == 1 and "only a paused job resumes" in again.stderr
    finally:
        stack.set_verify_used(usage["used"])
