"""Sending domains over HTTP on the embedded runtime, checked against its real DNS server
(devtools/local/dns_server.py, edited through /_local/dns): create, records, partial, verified,
a live send signed with the domain's key (checked by dkimpy) from its return path, a lost record's
grace and the owner's warning, unverified and rejected sends; live-only list, plan limit, names,
account scoping."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import dkim
import dns.resolver
import pytest

from postline.accounts.domain import Plan
from tests.e2e.sending_support import body_of, mail_for, mailbox
from tests.e2e.support import Api, assert_error, make_account, run_cli

pytestmark = pytest.mark.e2e

FIELDS = {
    "id", "domain", "status", "spf", "dkim", "dmarc", "region", "dkim_selector", "tracking_subdomain", "dns_records",
    "sent_count", "reputation", "created_at", "verified_at", "shared_with_company", "shared_external",
    "owner_workspace_name", "external_accounts",
}  # fmt: skip


def new_name() -> str:
    return f"acme-{uuid.uuid4().hex[:10]}.test"


def create(api: Api, name: str, **fields: Any) -> dict[str, Any]:
    response = api.post("/v3/domains", json={"domain": name, **fields})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def publish(api: Api, domain: dict[str, Any], *purposes: str, values: list[str] | None = None) -> None:
    for record in domain["dns_records"]:
        if record["purpose"] in purposes:
            body = {
                "name": record["host"],
                "type": record["type"],
                "values": [record["value"]] if values is None else values,
            }
            response = api.request("PUT", "/_local/dns", json=body)
            assert response.status_code == 200, response.text


def verify(api: Api, domain: dict[str, Any]) -> dict[str, Any]:
    response = api.post(f"/v3/domains/{domain['id']}/verify")
    assert response.status_code == 200, response.text
    checked: dict[str, Any] = response.json()
    return checked


def dkim_lookup(runtime: Any) -> Any:
    """dkimpy's DNS lookup, asking the runtime's DNS server with dnspython."""

    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        resolver = dns.resolver.Resolver(configure=False)
        resolver.nameservers, resolver.port = ["127.0.0.1"], runtime.dns.port
        try:
            answer = resolver.resolve(name.decode().rstrip("."), "TXT")
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return None
        return b"".join(answer[0].strings)

    return lookup


def test_a_domain_verifies_against_dns_sends_signed_from_its_return_path_and_loses_its_status(
    runtime: Any, runtime_api: Api
) -> None:
    owner = f"owner-{uuid.uuid4().hex[:8]}@acme.test"
    api = runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL, owner_email=owner).live_key)
    name = new_name()
    created = create(api, name, tracking_subdomain="links")
    assert set(created) == FIELDS and created["status"] == "pending"
    assert [(r["purpose"], r["type"], r["host"], r["ok"]) for r in created["dns_records"]] == [
        ("dkim", "TXT", f"{created['dkim_selector']}._domainkey.{name}", False),
        ("spf", "TXT", f"pm-bounces.{name}", False),
        ("return_path_mx", "MX", f"pm-bounces.{name}", False),
        ("dmarc", "TXT", f"_dmarc.{name}", False),
        ("tracking", "CNAME", f"links.{name}", False),
    ]

    publish(api, created, "dkim")
    partial = verify(api, created)
    assert (partial["status"], partial["dkim"], partial["spf"]) == ("partially_verified", True, False)
    assert [r["status"] for r in partial["dns_records"]] == ["found", "missing", "missing", "missing", "missing"]

    publish(api, created, "spf", "return_path_mx", "tracking")
    verified = verify(api, created)
    assert (verified["status"], verified["spf"], verified["dmarc"], verified["verified_at"] is not None) == (
        "verified",
        True,
        False,
        True,
    )
    assert api.get(f"/v3/domains/{created['id']}").json()["status"] == "verified"

    html = '<p><a href="https://acme.example/start">Start</a></p>'
    body = {"from": f"Acme <news@{name}>", "to": ["ada@example.com"], "subject": "Hi", "html": html}
    sent = api.post("/v3/messages", json=body)
    assert sent.status_code == 202, sent.text
    message_id = sent.json()["id"]
    assert api.post("/_local/drain").status_code == 200
    [copy] = mail_for(runtime, message_id)
    assert copy["mail_from"] == f"bounces+{message_id}@pm-bounces.{name}"
    assert f"d={name}" in copy["headers"]["DKIM-Signature"]
    assert dkim.verify(copy["raw"].encode(), dnsfunc=dkim_lookup(runtime))  # dkimpy, against the published key
    # The tracking CNAME resolves to our tracking host, so the links carry the domain's own name.
    assert f'href="https://links.{name}/v3/track/click/' in str(body_of(copy, "html"))
    assert api.get(f"/v3/domains/{created['id']}").json()["sent_count"] == 1

    # The SPF record goes: the schedule's next check (a day later) starts a 72-hour grace and warns the owner.
    publish(api, created, "spf", values=[])
    runtime.advance(timedelta(days=1, minutes=5).total_seconds())
    assert api.post("/_local/drain").status_code == 200
    in_grace = api.get(f"/v3/domains/{created['id']}").json()
    assert (in_grace["status"], in_grace["spf"]) == ("verified", False)
    [warning] = [m for m in mailbox(runtime) if owner in m["rcpt_tos"]]
    assert name in warning["headers"]["Subject"]

    runtime.advance(timedelta(hours=72, minutes=5).total_seconds())
    assert api.post("/_local/drain").status_code == 200
    assert api.get(f"/v3/domains/{created['id']}").json()["status"] == "unverified"
    rejected = api.post(
        "/v3/messages", json={"from": f"news@{name}", "to": ["ada@example.com"], "subject": "Hi", "text": "t"}
    )
    assert rejected.status_code == 202, rejected.text
    assert api.post("/_local/drain").status_code == 200
    assert api.get(f"/v3/messages/{rejected.json()['id']}").json()["status"] == "rejected"
    actions = [e["action"] for e in api.get("/v3/audit?per_page=100").json()["items"] if e["target"] == created["id"]]
    assert actions == [
        "domain.status_changed",
        "domain.record_lost",
        "domain.checked",
        "domain.checked",
        "domain.created",
    ]


def test_records_receivers_reject_are_invalid_and_never_verify(runtime_api: Api) -> None:
    api = runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL).live_key)
    created = create(api, new_name())
    ours = {record["purpose"]: record["value"] for record in created["dns_records"]}
    publish(api, created, "return_path_mx")
    publish(api, created, "spf", values=[ours["spf"], "v=spf1 include:other.example -all"])  # two SPF records
    publish(api, created, "dkim", values=[f"{ours['dkim']}; {ours['dkim'].rpartition('; ')[2]}"])  # p= twice
    publish(api, created, "dmarc", values=["p=reject; v=DMARC1"])  # v= not first

    checked = verify(api, created)

    assert (checked["status"], checked["dkim"], checked["spf"], checked["dmarc"]) == (
        "verification_failed",
        False,
        False,
        False,
    )
    found = {record["purpose"]: (record["status"], record["detail"]) for record in checked["dns_records"]}
    assert found["return_path_mx"] == ("found", None)
    for purpose, reason in [("spf", "2 SPF records"), ("dkim", "the tag p= appears twice"), ("dmarc", "v=DMARC1")]:
        assert found[purpose][0] == "invalid" and reason in found[purpose][1], found[purpose]


def test_the_list_is_live_only_and_test_keys_still_send_from_any_domain(runtime_api: Api) -> None:
    account = make_account(plan=Plan.PROFESSIONAL)
    live, test = runtime_api.with_key(account.live_key), runtime_api.with_key(account.test_key)
    created = create(live, new_name())
    listed = live.get("/v3/domains").json()
    assert listed == {"items": [live.get(f"/v3/domains/{created['id']}").json()], "total_count": 1}
    assert_error(test.get("/v3/domains"), 403, "test_key_forbidden")
    assert_error(test.post("/v3/domains", json={"domain": new_name()}), 403, "test_key_forbidden")
    sent = test.post(
        "/v3/messages",
        json={
            "from": "a@unregistered.example",
            "to": ["delivered@simulator.postline.dev"],
            "subject": "t",
            "text": "t",
        },
    )
    assert sent.status_code == 202, sent.text


def test_plan_limit_names_and_other_accounts(runtime_api: Api) -> None:
    free = runtime_api.with_key(make_account(plan=Plan.FREE).live_key)
    create(free, new_name())
    assert_error(free.post("/v3/domains", json={"domain": new_name()}), 403, "plan_limit_reached")

    pro = runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL).live_key)
    name = new_name()
    created = create(pro, name.upper(), tracking_subdomain="Links")
    assert (created["domain"], created["tracking_subdomain"]) == (name, "links")
    assert created["dns_records"][-1] == {
        "type": "CNAME", "host": f"links.{name}", "value": "track.postline.invalid", "ok": False,
        "purpose": "tracking", "status": "unchecked", "detail": None,
    }  # fmt: skip
    assert_error(pro.post("/v3/domains", json={"domain": name}), 400, "validation_error")
    for bad in ("co.uk", "192.0.2.7", "not a domain", "com"):
        assert_error(pro.post("/v3/domains", json={"domain": bad}), 400, "validation_error")
    # The return path's host holds its SPF TXT and MX: a tracking CNAME cannot go beside them.
    clash = assert_error(
        pro.post("/v3/domains", json={"domain": new_name(), "tracking_subdomain": "pm-bounces"}),
        400,
        "validation_error",
    )
    assert "a CNAME can have no other record beside it" in clash["error"]["message"]
    refused = pro.patch(f"/v3/domains/{created['id']}", json={"tracking_subdomain": "pm-bounces"})
    assert_error(refused, 400, "validation_error")

    for method, path in [("GET", ""), ("PATCH", ""), ("DELETE", ""), ("POST", "/verify")]:
        body = {"region": "eu-west-1"} if method == "PATCH" else None
        assert_error(free.request(method, f"/v3/domains/{created['id']}{path}", json=body), 404, "not_found")
    patched = pro.patch(f"/v3/domains/{created['id']}", json={"region": "eu-west-1", "tracking_subdomain": None})
    assert patched.status_code == 200 and (patched.json()["region"], len(patched.json()["dns_records"])) == (
        "eu-west-1",
        4,
    )
    assert pro.delete(f"/v3/domains/{created['id']}").status_code == 200
    assert_error(pro.get(f"/v3/domains/{created['id']}"), 404, "not_found")
    create(pro, name)  # the name is free again


def test_operators_list_records_force_a_check_and_set_sharing(runtime: Any, runtime_api: Api) -> None:
    account = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(account.live_key)
    created = create(api, new_name())
    [listed] = run_cli(runtime, "domain", "list", account.id)["items"]
    assert listed["id"] == created["id"]
    records = run_cli(runtime, "domain", "records", account.id, created["id"])
    # The records asked for; their check results may have moved on: a new domain's first check is due
    # at once, and the runtime's 5-minute schedule can run it between the two calls.
    asked = ("type", "host", "value", "purpose")
    assert [{k: r[k] for k in asked} for r in records["dns_records"]] == [
        {k: r[k] for k in asked} for r in created["dns_records"]
    ]
    publish(api, created, "dkim", "spf", "return_path_mx")
    assert run_cli(runtime, "domain", "recheck", account.id, created["id"])["status"] == "verified"
    shared = run_cli(
        runtime, "domain", "share", account.id, created["id"], "--with-company", "on", "--owner-workspace", "Ops"
    )
    assert (shared["shared_with_company"], shared["shared_external"], shared["owner_workspace_name"]) == (
        True,
        False,
        "Ops",
    )
    assert api.get(f"/v3/domains/{created['id']}").json()["shared_with_company"] is True
    [entry] = [e for e in api.get("/v3/audit").json()["items"] if e["action"] == "domain.sharing_changed"]
    assert (entry["actor_type"], entry["target"]) == ("staff", created["id"])


def test_a_dkim_rotation_moves_signing_to_the_new_selector_once_published(runtime: Any, runtime_api: Api) -> None:
    api = runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL).live_key)
    name = new_name()
    created = create(api, name)
    publish(api, created, "dkim", "spf", "return_path_mx")
    assert verify(api, created)["status"] == "verified"
    rotating = api.post(f"/v3/domains/{created['id']}/dkim/rotate")
    assert rotating.status_code == 200, rotating.text
    [next_key] = [r for r in rotating.json()["dns_records"] if r["purpose"] == "dkim_next"]
    assert (
        next_key["host"] != created["dns_records"][0]["host"]
        and next_key["value"] != created["dns_records"][0]["value"]
    )
    assert verify(api, created)["dkim_selector"] == created["dkim_selector"]  # not published yet

    publish(api, rotating.json(), "dkim_next")
    switched = verify(api, created)
    assert switched["dkim_selector"] == next_key["host"].split(".")[0] and switched["status"] == "verified"
    sent = api.post(
        "/v3/messages", json={"from": f"news@{name}", "to": ["ada@example.com"], "subject": "Hi", "text": "t"}
    )
    assert sent.status_code == 202, sent.text
    assert api.post("/_local/drain").status_code == 200
    [copy] = mail_for(runtime, sent.json()["id"])
    assert f"s={switched['dkim_selector']}" in copy["headers"]["DKIM-Signature"]
    assert dkim.verify(copy["raw"].encode(), dnsfunc=dkim_lookup(runtime))  # the new key, stored sealed
