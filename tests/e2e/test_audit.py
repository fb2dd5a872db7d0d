"""The audit log: every write of every route records an entry; staff entries are redacted."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
import requests

from postline import wiring
from postline.accounts.domain import Plan
from postline.audit.domain import REDACTED_STAFF_EMAIL
from postline.keys.access import Access
from postline.routes import ROUTES, Route
from postline.wiring import ip_pools
from tests.e2e.ip_pool_support import unused_loopback_ip
from tests.e2e.support import Api, make_account, run_cli

pytestmark = pytest.mark.e2e

ENTRY_FIELDS = {
    "id",
    "account_id",
    "actor_id",
    "actor_type",
    "actor_email",
    "action",
    "target",
    "details",
    "ip_address",
    "created_at",
}
# Management writes are audited. Sends, their cancellation and the tracking links are recorded as
# events of their message instead, and verifications as the usage they spend: the audit log is for
# who changed the account's setup. A content check (message_content) and a template preview change
# nothing; a webhook's sample event is recorded in the endpoint's delivery history, as a send is in
# its events.
UNCHANGING = ("RenderTemplate", "SendWebhookSample")
WRITE_ROUTES = [
    route
    for route in ROUTES
    if route.method != "GET"
    and route.access not in (Access.SEND, Access.CANCEL_OWN_SEND, Access.PUBLIC)
    and route.module not in ("verification", "message_content")
    and route.name not in UNCHANGING
]


def test_every_write_route_declares_its_audit_action() -> None:
    assert WRITE_ROUTES
    assert all(route.audit for route in WRITE_ROUTES), [r.name for r in WRITE_ROUTES if not r.audit]


def _call(admin: Api, route: Route) -> str:
    """Perform a write route on a fresh key; returns the audit target it should record."""
    if route.module == "webhooks":
        hook = {"url": "http://127.0.0.1:9/hooks", "events": ["delivered"], "auth": {"hmac": {}}}
        if route.name == "CreateWebhook":
            return str(admin.post("/v3/webhooks", json=hook).json()["id"])
        target = admin.post("/v3/webhooks", json=hook).json()["id"]
    elif route.module == "templates":
        if route.name == "CreateTemplate":
            return str(admin.post("/v3/templates", json={"name": "new", "subject": "Hi"}).json()["id"])
        target = admin.post("/v3/templates", json={"name": "audited", "subject": "Hi"}).json()["id"]
    elif route.module == "domains":
        name = {"domain": f"audited-{uuid.uuid4().hex[:10]}.example"}
        target = admin.post("/v3/domains", json=name).json()["id"]
        if route.name == "CreateDomain":
            return str(target)
    elif route.module == "suppressions":
        email = f"audited-{uuid.uuid4().hex[:10]}@example.com"
        if route.name in ("BulkAddSuppressions", "BulkDeleteSuppressions"):
            body = {"type": "bounces", "entries": [{"email": email}]}
            if route.method == "DELETE":
                body = {"type": "bounces", "emails": [email]}
            assert admin.request(route.method, route.path, json=body).status_code == 200
            return "bounces"
        if route.name == "ExportSuppressions":
            return str(admin.post("/v3/suppressions/export", json={"type": "bounces"}).json()["export_id"])
        if route.name == "ImportSuppressions":
            body = {"type": "bounces", "csv": f"email\n{email}\n"}
            return str(admin.post("/v3/suppressions/import", json=body).json()["import_id"])
        target = admin.post("/v3/suppressions", json={"type": "bounces", "email": email}).json()["id"]
        if route.name == "CreateSuppression":
            return str(target)
        if route.name == "DeleteSuppressionByAddress":
            assert admin.delete(f"/v3/suppressions/bounces/{email}").status_code == 200
            return str(target)
    elif route.module == "lists":
        address = f"audited-{uuid.uuid4().hex[:10]}@lists.example"
        target = admin.post("/v3/lists", json={"address": address, "name": "audited"}).json()["id"]
        if route.name == "CreateList":
            return str(target)
        members = f"/v3/lists/{target}/members"
        member = {"address": "member@example.com"}
        if route.name == "BulkUpsertListMembers":
            assert admin.post(f"{members}/bulk", json={"members": [member]}).status_code == 200
            return str(target)
        if route.name != "AddListMember":
            assert admin.post(members, json=member).status_code == 201
        path = route.path.replace("{id}", target).replace("{address}", member["address"])
        body = {"AddListMember": member, "UpdateListMember": {"subscribed": False}}.get(route.name)
        body = {"name": "renamed"} if route.name == "UpdateList" else body
        response = admin.request(route.method, path, json=body)
        assert response.status_code < 300, response.text
        return str(target)
    elif route.module == "subaccounts":
        created = admin.post("/v3/subaccounts", json={"name": "audited", "slug": f"audited-{uuid.uuid4().hex[:8]}"})
        target = created.json()["id"]
        if route.name == "CreateSubaccount":
            return str(target)
        if route.name == "ReactivateSubaccount":
            assert admin.post(f"/v3/subaccounts/{target}/suspend").status_code == 200
    elif route.module == "uploads":
        if route.name == "CreateUpload":
            return str(admin.post("/v3/uploads", json={"filename": "a.txt", "content": "aGk="}).json()["id"])
        if route.name == "CompleteUpload":
            created = admin.post("/v3/uploads", json={"filename": "a.txt", "size_bytes": 2}).json()
            post = created["upload"]
            assert requests.post(post["url"], data=post["fields"], files={"file": b"hi"}, timeout=30).ok
            assert admin.post(f"/v3/uploads/{created['id']}/complete").status_code == 200
            return str(created["id"])
        target = admin.post("/v3/uploads", json={"filename": "a.txt", "content": "aGk="}).json()["id"]
        if route.name == "UpdateUpload":
            assert admin.patch(f"/v3/uploads/{target}", json={"filename": "b.txt"}).status_code == 200
            return str(target)
    elif route.module == "ip_pools":
        target = admin.post("/v3/ip-pools", json={"name": f"audited-{uuid.uuid4().hex[:8]}"}).json()["id"]
        if route.name == "CreateIpPool":
            return str(target)
        if route.name == "AssignIp":
            return _assign_ip(admin, target)
    elif route.name == "CreateKey":
        return str(admin.post("/v3/keys", json={"name": "new"}).json()["id"])
    elif route.name == "ResendWebhookDeliveries":
        hook = {"url": "http://127.0.0.1:9/hooks", "events": ["delivered"]}
        endpoint_id = admin.post("/v3/webhooks", json=hook).json()["id"]
        since = (wiring.clock().now() - timedelta(hours=1)).isoformat()  # the runtime's clock
        resend = {"filter": {"endpoint_id": endpoint_id, "since": since}}
        return str(admin.post("/v3/webhooks/deliveries/resend", json=resend).json()["id"])
    elif route.name == "CreateDataRemoval":
        body = {"email": f"audited-{uuid.uuid4().hex[:10]}@example.com"}
        return str(admin.post("/v3/data-removals", json=body).json()["removal_id"])
    elif route.name == "ExportEvents":
        moment = wiring.clock().now()  # the runtime's
        window = {"since": (moment - timedelta(hours=1)).isoformat(), "until": moment.isoformat()}
        return str(admin.post("/v3/events/export", json=window).json()["export_id"])
    else:
        target = admin.post("/v3/keys", json={"name": "audited"}).json()["id"]
    path = route.path.replace("{id}", target)
    body: dict[str, Any] | None = {"name": "renamed"} if route.method == "PATCH" else None
    if route.name == "UpdateDomain":
        body = {"region": "eu-west-1"}
    if route.method == "PUT":
        body = {"enabled": False}
    response = admin.request(route.method, path, json=body)
    assert response.status_code < 300, response.text
    return str(target)


def _assign_ip(admin: Api, target: str) -> str:
    """An address the operator allocates into another pool of the account, moved into `target`."""
    other = admin.post("/v3/ip-pools", json={"name": f"other-{uuid.uuid4().hex[:8]}"}).json()["id"]
    account_id = admin.get("/v3/whoami").json()["account"]["id"]
    ip = unused_loopback_ip()
    ip_pools.ip_pool_admin().allocate(ip, account_id=account_id, pool_id=other)
    assert admin.post(f"/v3/ip-pools/{target}/ips", json={"ip": ip}).status_code == 200
    return target


@pytest.mark.parametrize("route", WRITE_ROUTES, ids=lambda r: r.name)
def test_each_write_records_its_action_actor_target_and_ip(runtime_api: Api, route: Route) -> None:
    paid = route.module in ("subaccounts", "uploads", "ip_pools")  # Free has none
    account = make_account(plan=Plan.PROFESSIONAL if paid else Plan.FREE)
    admin = runtime_api.with_key(account.live_key)
    target = _call(admin, route)
    whoami = admin.get("/v3/whoami").json()
    entry = admin.get("/v3/audit").json()["items"][0]
    if route.name == "CreateDataRemoval":  # its worker may have audited the completion since (a system entry)
        entry = next(item for item in admin.get("/v3/audit").json()["items"] if item["action"] == route.audit)
    assert set(entry) == ENTRY_FIELDS
    assert (entry["action"], entry["target"], entry["account_id"]) == (route.audit, target, account.id)
    assert (entry["actor_type"], entry["actor_id"]) == ("user", whoami["api_key"]["id"])
    assert entry["ip_address"] == "127.0.0.1" and entry["actor_email"] is None


def test_staff_entries_are_redacted(runtime_api: Api, runtime: Any) -> None:
    account = make_account()
    run_cli(runtime, "account", "set-rate-limit", account.id, "1000")
    # The CLI runs on the system clock, the runtime on its movable one: find the entry, not the newest.
    items = runtime_api.with_key(account.live_key).get("/v3/audit").json()["items"]
    [entry] = [item for item in items if item["action"] == "account.rate_limit_changed"]
    assert (entry["target"], entry["details"]) == (account.id, "rate limit 1000/min")
    assert (entry["actor_type"], entry["actor_id"], entry["ip_address"]) == ("staff", None, None)
    assert entry["actor_email"] == REDACTED_STAFF_EMAIL


def test_audit_is_newest_first_and_page_numbered(runtime_api: Api) -> None:
    admin = runtime_api.with_key(make_account().live_key)
    for n in range(3):
        admin.post("/v3/keys", json={"name": f"k{n}"})
    first = admin.get("/v3/audit?per_page=2").json()
    total = first["pagination"]["total_count"]
    assert first["pagination"] == {"page": 1, "per_page": 2, "total_count": total, "total_pages": (total + 1) // 2}
    everything = [e["created_at"] for e in admin.get("/v3/audit?per_page=100").json()["items"]]
    assert everything == sorted(everything, reverse=True) and len(everything) == total
    second = admin.get("/v3/audit?per_page=2&page=2").json()["items"]
    assert [e["created_at"] for e in first["items"] + second] == everything[:4]
