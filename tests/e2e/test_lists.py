"""Mailing lists over HTTP on the embedded runtime: a list created, read by id and by address,
listed, renamed and deleted (its address free again, its members removed by the list worker);
members added, listed with the subscribed filter, read, updated and removed; the bulk upsert's
skipped indexes, vars merged or replaced, and idempotent re-runs; member_count exact under parallel
adds and deletes; the audit entries."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from postline import wiring
from postline.config import Resources
from tests.e2e.sending_support import drain
from tests.e2e.support import Api, assert_error, make_account

pytestmark = pytest.mark.e2e

LIST_FIELDS = {"id", "account_id", "address", "name", "description", "member_count", "created_at"}
MEMBER_FIELDS = {"id", "list_id", "address", "name", "vars", "subscribed", "created_at"}


def _list(api: Api, address: str, name: str = "News", **fields: Any) -> dict[str, Any]:
    response = api.post("/v3/lists", json={"address": address, "name": name, **fields})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _members_left(list_id: str) -> int:
    response = wiring.client("dynamodb").query(
        TableName=wiring.settings(Resources).table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"LIST#{list_id}"}},
        Select="COUNT",
    )
    return int(response["Count"])


def test_a_list_is_created_read_listed_updated_and_deleted(runtime: Any, runtime_api: Api) -> None:
    account = make_account()
    api = runtime_api.with_key(account.live_key)
    first = _list(api, "News@Lists.Example", description="Monthly")
    assert set(first) == LIST_FIELDS
    assert (first["address"], first["account_id"], first["member_count"]) == ("news@lists.example", account.id, 0)
    second = _list(api, "offers@lists.example", "Offers")
    assert api.get(f"/v3/lists/{first['id']}").json() == first
    assert api.get("/v3/lists/NEWS%40lists.example").json() == first
    taken = assert_error(
        api.post("/v3/lists", json={"address": "news@lists.example", "name": "x"}), 400, "validation_error"
    )
    assert taken["error"]["message"] == "address: this account has a list at news@lists.example already."
    assert_error(api.post("/v3/lists", json={"address": "nope", "name": "x"}), 400, "validation_error")
    listed = api.get("/v3/lists", params={"per_page": 1, "page": 2}).json()
    assert listed == {"items": [second], "pagination": {"page": 2, "per_page": 1, "total_count": 2, "total_pages": 2}}
    other = runtime_api.with_key(make_account().live_key)
    assert_error(other.get(f"/v3/lists/{first['id']}"), 404, "not_found")

    renamed = api.patch(f"/v3/lists/{first['id']}", json={"name": "Monthly news", "description": None})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json() == {**first, "name": "Monthly news", "description": None}
    assert_error(api.patch(f"/v3/lists/{first['id']}", json={}), 400, "validation_error")

    bulk = {"members": [{"address": f"m{n}@example.com"} for n in range(250)]}
    assert api.post(f"/v3/lists/{first['id']}/members/bulk", json=bulk).json()["member_count"] == 250
    deleted = api.delete("/v3/lists/news@lists.example")
    assert deleted.status_code == 200, deleted.text
    assert_error(api.get(f"/v3/lists/{first['id']}"), 404, "not_found")
    assert_error(api.post(f"/v3/lists/{first['id']}/members", json={"address": "late@example.com"}), 404, "not_found")
    drain(runtime)
    assert _members_left(first["id"]) == 0
    again = _list(api, "news@lists.example")  # the address is free again; a new list, no members
    assert again["id"] != first["id"] and again["member_count"] == 0
    actions = [item["action"] for item in api.get("/v3/audit").json()["items"]]
    assert actions[:5] == ["list.created", "list.deleted", "list.members_upserted", "list.updated", "list.created"]


def test_members_are_added_listed_updated_and_removed(runtime_api: Api) -> None:
    api = runtime_api.with_key(make_account().live_key)
    mailing_list = _list(api, "members@lists.example")
    base = f"/v3/lists/{mailing_list['id']}/members"
    added = api.post(base, json={"address": "Jane@Example.com", "name": "Jane", "vars": {"plan": "pro"}})
    assert added.status_code == 201, added.text
    jane = added.json()
    assert set(jane) == MEMBER_FIELDS
    assert (jane["address"], jane["list_id"], jane["subscribed"], jane["vars"]) == (
        "jane@example.com", mailing_list["id"], True, {"plan": "pro"}
    )  # fmt: skip
    member = assert_error(api.post(base, json={"address": "jane@example.com"}), 400, "validation_error")  # permanent
    assert "jane@example.com is a member of this list already" in member["error"]["message"]
    assert_error(api.post(base, json={"address": "bad"}), 400, "validation_error")
    bob = api.post(base, json={"address": "bob@example.com", "subscribed": False}).json()
    assert api.get(f"{base}/JANE%40example.com").json() == jane
    everyone = api.get(base).json()
    assert [m["address"] for m in everyone["items"]] == ["bob@example.com", "jane@example.com"]
    assert api.get(base, params={"subscribed": "false"}).json()["items"] == [bob]
    assert api.get(base, params={"subscribed": "true"}).json()["pagination"]["total_count"] == 1

    changed = api.patch(f"{base}/jane@example.com", json={"subscribed": False, "vars": {"plan": "team"}})
    assert changed.status_code == 200, changed.text
    assert changed.json() == {**jane, "subscribed": False, "vars": {"plan": "team"}}
    assert api.get(f"/v3/lists/{mailing_list['id']}").json()["member_count"] == 2
    assert api.delete(f"{base}/bob@example.com").status_code == 200
    assert_error(api.delete(f"{base}/bob@example.com"), 404, "not_found")
    assert_error(api.get(f"{base}/bob@example.com"), 404, "not_found")
    assert api.get(f"/v3/lists/{mailing_list['id']}").json()["member_count"] == 1
    actions = [item["action"] for item in api.get("/v3/audit").json()["items"]]
    assert actions[:4] == ["list.member_deleted", "list.member_updated", "list.member_added", "list.member_added"]


def test_bulk_upsert_skips_exactly_and_merges_or_replaces_vars(runtime_api: Api) -> None:
    api = runtime_api.with_key(make_account().live_key)
    mailing_list = _list(api, "bulk@lists.example")
    path = f"/v3/lists/{mailing_list['id']}/members/bulk"
    members = [
        {"address": "a@example.com", "vars": {"first": "Ann", "plan": "free"}},
        {"address": "not an address"},
        {"address": "B@example.com", "name": "Bo"},
        {"address": "a@EXAMPLE.com", "vars": {"first": "dup"}},
    ]
    result = api.post(path, json={"members": members}).json()
    assert result == {
        "created": 2,
        "updated": 0,
        "member_count": 2,
        "skipped": [
            {"index": 1, "address": "not an address", "reason": "invalid_syntax"},
            {"index": 3, "address": "a@EXAMPLE.com", "reason": "duplicate_in_batch"},
        ],
    }
    merge = {"members": [{"address": "a@example.com", "vars": {"plan": "pro", "first": None}}, {"address": "c@x.io"}]}
    assert api.post(path, json=merge).json() == {"created": 1, "updated": 1, "member_count": 3, "skipped": []}
    assert api.get(f"/v3/lists/{mailing_list['id']}/members/a@example.com").json()["vars"] == {"plan": "pro"}
    replace = {"members": [{"address": "a@example.com", "vars": {"team": "x"}, "subscribed": False}],
               "replace_vars": True}  # fmt: skip
    assert api.post(path, json=replace).json()["updated"] == 1
    a = api.get(f"/v3/lists/{mailing_list['id']}/members/a@example.com").json()
    assert (a["vars"], a["subscribed"]) == ({"team": "x"}, False)
    assert api.post(path, json=replace).json() == {"created": 0, "updated": 1, "member_count": 3, "skipped": []}
    too_many = {"members": [{"address": f"u{n}@example.com"} for n in range(1_001)]}
    assert_error(api.post(path, json=too_many), 400, "validation_error")


def test_member_count_stays_exact_under_parallel_adds_and_deletes(runtime_api: Api) -> None:
    api = runtime_api.with_key(make_account().live_key)
    mailing_list = _list(api, "busy@lists.example")
    base = f"/v3/lists/{mailing_list['id']}/members"
    addresses = [f"p{n}@example.com" for n in range(40)]

    def add(address: str) -> int:
        return int(api.post(base, json={"address": address}).status_code)

    def remove(address: str) -> int:
        return int(api.delete(f"{base}/{address}").status_code)

    with ThreadPoolExecutor(max_workers=8) as pool:
        # every address twice at once: one add wins, the other is a 400 (a member already), and nothing counts twice
        assert sorted(pool.map(add, addresses * 2)) == [201] * 40 + [400] * 40
        bulk = {"members": [{"address": a} for a in addresses[:10] + [f"q{n}@example.com" for n in range(20)]]}
        futures = [pool.submit(api.post, f"{base}/bulk", json=bulk)]
        statuses = list(pool.map(remove, addresses[20:] * 2))
        assert sorted(statuses) == [200] * 20 + [404] * 20
        assert futures[0].result().status_code == 200
    total = api.get(base, params={"per_page": 100}).json()["pagination"]["total_count"]
    assert total == 40
    assert api.get(f"/v3/lists/{mailing_list['id']}").json()["member_count"] == total
