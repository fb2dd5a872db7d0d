"""IP pools on the embedded runtime, over HTTP: Free has none (403), a Professional account creates
pools, sees the platform's pools read-only (403 on writes), gets addresses from the operator's CLI,
moves them between its pools, picks a default, reads the staff-managed fields, deletes an empty pool;
sends, list sends and SMTP submissions leave from the pool's address."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from typing import Any

import pytest

from postline.accounts.domain import Plan
from postline.ip_pools.domain import WARMUP_RAMP
from tests.e2e.ip_pool_support import unused_loopback_ip
from tests.e2e.sending_support import accepted, drain, events_of, mail_for, mail_to, recipient, settle, verified_sender
from tests.e2e.support import Api, assert_error, make_account, run_cli
from tests.e2e.test_smtp_submission import client, mail, submit
from tests.support import eventually

pytestmark = pytest.mark.e2e


def test_free_accounts_have_no_dedicated_pools(runtime_api: Api) -> None:
    api = runtime_api.with_key(make_account(plan=Plan.FREE).live_key)
    assert_error(api.post("/v3/ip-pools", json={"name": "mine"}), 403, "plan_limit_reached")
    listed = api.get("/v3/ip-pools").json()
    assert set(listed) == {"items", "pagination"} and all(p["account_id"] is None for p in listed["items"])
    assert api.get("/v3/ips").json()["items"] == []


def test_pools_addresses_and_the_default(runtime_api: Api, runtime: Any) -> None:
    account = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(account.live_key)
    platform = run_cli(
        runtime, "ip-pool", "create", "--name", f"shared-{uuid.uuid4().hex[:6]}", "--region", "us-east-1"
    )
    assert platform["account_id"] is None and platform["type"] == "shared"

    created = api.post("/v3/ip-pools", json={"name": "transactional", "default": True})
    assert created.status_code == 201, created.text
    pool = created.json()
    assert (pool["account_id"], pool["type"], pool["ips"], pool["default"]) == (account.id, "dedicated", [], True)
    assert (pool["reputation"], pool["ip_details"], pool["provider"]) == (None, None, "cloud-relay")
    warming = api.post("/v3/ip-pools", json={"name": "marketing", "type": "warming"}).json()
    assert_error(api.post("/v3/ip-pools", json={"name": "x", "type": "shared"}), 400, "validation_error")
    assert_error(api.post("/v3/ip-pools", json={"name": "marketing"}), 400, "validation_error")
    assert_error(api.patch(f"/v3/ip-pools/{pool['id']}", json={"reputation": 99}), 400, "validation_error")

    listed = api.get("/v3/ip-pools?per_page=100").json()
    ours = [p["id"] for p in listed["items"] if p["account_id"] == account.id]
    assert ours == [pool["id"], warming["id"]] and listed["pagination"]["total_count"] == len(listed["items"])
    assert any(p["id"] == platform["id"] for p in listed["items"])
    assert api.get(f"/v3/ip-pools/{platform['id']}").json()["name"] == platform["name"]
    for method, path, body in (
        ("PATCH", f"/v3/ip-pools/{platform['id']}", {"name": "mine"}),
        ("DELETE", f"/v3/ip-pools/{platform['id']}", None),
        ("POST", f"/v3/ip-pools/{platform['id']}/ips", {"ip": "127.0.0.1"}),
    ):
        assert_error(api.request(method, path, json=body), 403, "platform_pool_read_only")

    first, second = unused_loopback_ip(), unused_loopback_ip()
    for ip in (first, second):
        run_cli(runtime, "ip", "allocate", ip, "--pool", pool["id"], "--account", account.id)
    other = make_account(plan=Plan.PROFESSIONAL)
    other_api = runtime_api.with_key(other.live_key)
    others = other_api.post("/v3/ip-pools", json={"name": "theirs"}).json()
    assert_error(other_api.post(f"/v3/ip-pools/{others['id']}/ips", json={"ip": first}), 404, "not_found")
    assert_error(other_api.get(f"/v3/ip-pools/{pool['id']}"), 404, "not_found")

    moved = api.post(f"/v3/ip-pools/{warming['id']}/ips", json={"ip": second})
    assert moved.status_code == 200, moved.text
    assert moved.json() == {"ip": second, "pool_id": warming["id"], "pool_name": "marketing",
                            "provider": "cloud-relay", "region": None}  # fmt: skip
    ips = {(i["ip"], i["pool_name"]) for i in api.get("/v3/ips").json()["items"]}
    assert ips == {(first, "transactional"), (second, "marketing")}
    assert_error(api.post(f"/v3/ip-pools/{warming['id']}/ips", json={"ip": "not-an-ip"}), 400, "validation_error")

    run_cli(runtime, "ip-pool", "set-reputation", pool["id"], "91", "--account", account.id)
    run_cli(
        runtime,
        "ip-pool",
        "set-ip-details",
        pool["id"],
        json.dumps({first: {"ptr": "mta1.example"}}),
        "--account",
        account.id,
    )
    seen = api.get(f"/v3/ip-pools/{pool['id']}").json()
    assert (seen["reputation"], seen["ip_details"], seen["default"]) == (91, {first: {"ptr": "mta1.example"}}, True)

    assert api.patch(f"/v3/ip-pools/{warming['id']}", json={"default": True}).json()["default"] is True
    assert api.get(f"/v3/ip-pools/{pool['id']}").json()["default"] is False
    assert_error(api.delete(f"/v3/ip-pools/{warming['id']}"), 400, "validation_error")  # holds an address
    assert api.post(f"/v3/ip-pools/{pool['id']}/ips", json={"ip": second}).status_code == 200
    assert api.delete(f"/v3/ip-pools/{warming['id']}").status_code == 200
    assert_error(api.get(f"/v3/ip-pools/{warming['id']}"), 404, "not_found")
    assert api.get("/v3/whoami").status_code == 200
    actions = [e["action"] for e in api.get("/v3/audit?per_page=100").json()["items"]]
    assert {"ip_pool.created", "ip_pool.ip_assigned", "ip_pool.deleted", "ip.allocated"} <= set(actions)


def test_a_send_leaves_from_its_pools_address(runtime: Any) -> None:
    """A live send naming a pool, and one using the account's default pool: the mail sink sees the
    pool's loopback address as the connection's source, and the sent event names the pool and IP."""
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    api = sender.live
    named = api.post("/v3/ip-pools", json={"name": "named"}).json()
    default = api.post("/v3/ip-pools", json={"name": "fallback", "default": True}).json()
    named_ip, default_ip = unused_loopback_ip(), unused_loopback_ip()
    run_cli(runtime, "ip", "allocate", named_ip, "--pool", named["id"], "--account", sender.id)
    run_cli(runtime, "ip", "allocate", default_ip, "--pool", default["id"], "--account", sender.id)

    unknown = {"from": sender.address, "to": [recipient("pool")], "subject": "Hi", "text": "Hello", "ip_pool": "nope"}
    assert_error(api.post("/v3/messages", json=unknown), 400, "validation_error")
    batch = {"from": sender.address, "subject": "Hi", "text": "Hello", "ip_pool": "nope",
             "recipients": [{"to": recipient("pool")}]}  # fmt: skip
    assert_error(api.post("/v3/messages.batch", json=batch), 400, "validation_error")
    cases = {"named": (named, named_ip), None: (default, default_ip)}
    for reference, (pool, ip) in cases.items():
        body: dict[str, Any] = {"from": sender.address, "to": [recipient("pool")], "subject": "Hi", "text": "Hello"}
        if reference:
            body["ip_pool"] = reference
        sent = accepted(api.post("/v3/messages", json=body))
        settle(runtime, sent["id"])
        (copy,) = mail_for(runtime, sent["id"])
        assert copy["peer"] == ip
        found = events_of(sent["id"], until=lambda evs: any(e.type.value == "sent" for e in evs))
        sent_event = next(e for e in found if e.type.value == "sent")
        assert (sent_event.data["ip_pool"], sent_event.data["ip"]) == (pool["id"], ip)

    def listed(query: str) -> list[tuple[str, str]]:
        found = api.get(f"/v3/events?{query}&limit=100").json()
        assert found["total_count"] == len(found["items"]), found
        return sorted((e["type"], e["metadata"]["ip"]) for e in found["items"])  # provider details are there

    assert listed(f"ip_pool={named['id']}") == [("delivered", named_ip), ("sent", named_ip)]
    assert listed(f"ip={default_ip}&event=sent") == [("sent", default_ip)]
    assert listed(f"ip_pool={default['id']}&ip={named_ip}") == []


def test_an_smtp_submission_names_its_pool_in_x_svc_ip_pool(runtime: Any) -> None:
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    pool = sender.live.post("/v3/ip-pools", json={"name": "smtp"}).json()
    ip = unused_loopback_ip()
    run_cli(runtime, "ip", "allocate", ip, "--pool", pool["id"], "--account", sender.id)
    to = recipient("smtp-pool")
    with client(runtime) as smtp:
        smtp.login("api", sender.account.live_key)
        message_id = submit(smtp, mail(sender.address, to, X_Svc_Ip_Pool="smtp"), [to])
    settle(runtime, message_id)
    (copy,) = mail_for(runtime, message_id)
    assert copy["peer"] == ip and "X-Svc-Ip-Pool" not in copy["headers"]


def test_a_warming_pool_overflows_on_day_1_and_carries_more_on_day_5(runtime: Any) -> None:
    """One address on its ramp: day 1 carries WARMUP_RAMP[0] copies, the rest leave from the shared
    pool (here the host's own address) and say so on their events; four days later (the movable
    clock) the same batch goes all through the warming pool; the ip_pool metrics breakdown counts the
    overflow as a row of its own."""
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    api = sender.live
    pool = api.post("/v3/ip-pools", json={"name": "warming", "type": "warming", "default": True}).json()
    ip = unused_loopback_ip()
    run_cli(runtime, "ip", "allocate", ip, "--pool", pool["id"], "--account", sender.id)
    cap, extra = WARMUP_RAMP[0], 3

    def batch() -> list[str]:
        addresses = [recipient("warm") for _ in range(cap + extra)]
        body = {"from": sender.address, "subject": "Hi", "text": "Hello", "recipients": [{"to": a} for a in addresses]}
        sent = api.post("/v3/messages.batch", json=body)
        assert sent.status_code == 202, sent.text
        ids: list[str] = sent.json()["message_ids"]
        settle(runtime, *ids)
        return ids

    first = batch()
    peers = Counter(copy["peer"] for message_id in first for copy in mail_for(runtime, message_id))
    assert peers[ip] == cap and sum(peers.values()) == cap + extra
    overflowed = [
        e for m in first for e in events_of(m, until=lambda evs: any(e.type.value == "sent" for e in evs))
        if e.type.value == "sent" and e.data.get("ip_pool_overflow") == pool["id"]
    ]  # fmt: skip
    assert len(overflowed) == extra and all("ip" not in e.data for e in overflowed)

    runtime.advance(4 * 24 * 3600)  # day 5 of the ramp
    second = batch()
    peers = Counter(copy["peer"] for message_id in second for copy in mail_for(runtime, message_id))
    assert peers == Counter({ip: cap + extra})

    # The overflow is a metrics dimension: the ip_pool breakdown's `<pool>:overflow` row.
    def rows() -> dict[str, int]:
        found = api.get("/v3/metrics/breakdown", params={"dimension": "ip_pool"})
        assert found.status_code == 200, found.text
        sent = {row["key"]: row["sent"] for row in found.json()["data"]}
        assert sent == {pool["id"]: 2 * cap + extra, f"{pool['id']}:overflow": extra}, sent
        return sent

    eventually(rows, 30, waiting_for="the roll-ups to count the pool's copies")


def test_a_list_send_leaves_from_its_pools_address(runtime: Any) -> None:
    """A send to a list's address naming `ip_pool` keeps it for every member's copy: each leaves from
    the pool's address (the mail sink's peer) and its sent event names the pool and the address."""
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    api = sender.live
    pool = api.post("/v3/ip-pools", json={"name": "newsletters"}).json()
    ip = unused_loopback_ip()
    run_cli(runtime, "ip", "allocate", ip, "--pool", pool["id"], "--account", sender.id)
    domain = f"lp-{uuid.uuid4().hex[:8]}.example"
    created = api.post("/v3/lists", json={"address": f"news-{uuid.uuid4().hex[:8]}@lists.example", "name": "News"})
    assert created.status_code == 201, created.text
    members = [f"m{n}@{domain}" for n in range(2)]
    added = api.post(
        f"/v3/lists/{created.json()['id']}/members/bulk", json={"members": [{"address": a} for a in members]}
    )
    assert added.status_code == 200, added.text

    body = {"from": sender.address, "to": [created.json()["address"]], "subject": "News", "text": "Hello",
            "ip_pool": "newsletters"}  # fmt: skip
    assert accepted(api.post("/v3/messages", json=body))["list_send"] is True
    drain(runtime)

    for member in members:
        (copy,) = mail_to(runtime, member)
        assert copy["peer"] == ip, member
    found = api.get(f"/v3/events?ip_pool={pool['id']}&event=sent&limit=100").json()
    assert sorted(e["recipient"] for e in found["items"]) == members
    assert {e["metadata"]["ip"] for e in found["items"]} == {ip}
