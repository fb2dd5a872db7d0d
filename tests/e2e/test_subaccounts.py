"""Organisations on the embedded runtime, over HTTP: an organisation with two subaccounts; the
organisation's key acting for them with On-Behalf-Of (a live send delivered from a subaccount's own
domain, a list send resumed by the list worker, a key that then acts only in its subaccount); ids
scoped (a subaccount's key gets 404 for its parent's and its sibling's resources on read routes,
another organisation's key 404 for ours); who may act on behalf; suspension; deletion; the plan's
limit; the audit entries in both logs; and the rate window counted."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from postline.accounts.domain import PLAN_LIMITS, Plan
from postline.domains.domain import DomainStatus, SendingDomain
from postline.http import app as http_app
from postline.keys.access import Scope
from postline.wiring import domains
from tests.e2e.sending_support import (
    DKIM_SELECTOR,
    accepted,
    dkim_private_pem,
    drain,
    mail_for,
    mail_to,
    parse,
    recipient,
    settle,
)
from tests.e2e.support import Api, TestAccount, assert_error, make_account, make_key

pytestmark = pytest.mark.e2e


@dataclass
class Organisation:
    account: TestAccount
    api: Api  # the organisation's full_access live key
    subs: dict[str, dict[str, Any]]  # slug -> Subaccount

    def on_behalf(self, reference: str) -> Callable[..., Any]:
        """api.request, acting for one subaccount."""

        def call(method: str, path: str, **kwargs: Any) -> Any:
            return self.api.request(method, path, headers={"On-Behalf-Of": reference}, **kwargs)

        return call


@pytest.fixture
def org(runtime_api: Api) -> Organisation:
    account = make_account(plan=Plan.PROFESSIONAL, owner_email="owner@org.example")
    api = runtime_api.with_key(account.live_key)
    subs = {}
    for slug, name in (("acme", "Acme Inc"), ("globex", "Globex")):
        created = api.post("/v3/subaccounts", json={"name": name, "slug": slug})
        assert created.status_code == 201, created.text
        subs[slug] = created.json()
    return Organisation(account, api, subs)


def _sub_key(org: Organisation, slug: str) -> Api:
    """A full_access live key made inside the subaccount by the organisation acting for it."""
    made = org.on_behalf(slug)("POST", "/v3/keys", json={"name": f"{slug} ci"})
    assert made.status_code == 201, made.text
    return org.api.with_key(made.json()["key"])


def _verified_domain(account_id: str) -> str:
    domain = f"sub-{uuid.uuid4().hex[:10]}.test"
    domains.sending_domains().put_domain(
        SendingDomain(
            account_id=account_id,
            id=f"dom_{uuid.uuid4().hex[:8]}",
            created_at=datetime.now(UTC),
            domain=domain,
            status=DomainStatus.VERIFIED,
            dkim_selector=DKIM_SELECTOR,
            dkim_private_key=dkim_private_pem(),
        )
    )
    return domain


def test_an_organisation_with_two_subaccounts(org: Organisation) -> None:
    acme, globex = org.subs["acme"], org.subs["globex"]
    assert set(acme) == {"id", "parent_account_id", "name", "slug", "status", "created_at"}
    assert (acme["parent_account_id"], acme["status"]) == (org.account.id, "active")
    uuid.UUID(acme["id"])
    listed = org.api.get("/v3/subaccounts?per_page=1").json()
    assert listed == {
        "items": [acme],
        "pagination": {"page": 1, "per_page": 1, "total_count": 2, "total_pages": 2},
    }
    assert org.api.get("/v3/subaccounts?page=2&per_page=1").json()["items"] == [globex]
    assert org.api.get(f"/v3/subaccounts/{globex['id']}").json() == org.api.get("/v3/subaccounts/globex").json()
    renamed = org.api.patch("/v3/subaccounts/acme", json={"name": "Acme GmbH", "slug": "acme"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "Acme GmbH"
    assert_error(org.api.patch("/v3/subaccounts/acme", json={"slug": "acme-2"}), 400, "validation_error")
    assert_error(org.api.post("/v3/subaccounts", json={"name": "again", "slug": "acme"}), 400, "validation_error")
    assert_error(org.api.post("/v3/subaccounts", json={"name": "bad", "slug": "Acme"}), 400, "validation_error")
    # A subaccount is an account of its own: its identity, on the Free plan, its own rate window.
    me = org.on_behalf("acme")("GET", "/v3/whoami")
    assert me.json()["account"] == {"id": acme["id"], "name": "Acme GmbH", "plan": "free", "status": "active"}
    assert me.headers["X-RateLimit-Limit"] == str(PLAN_LIMITS[Plan.FREE].rate_limit_per_minute)
    assert org.api.get("/v3/whoami").headers["X-RateLimit-Limit"] == str(
        PLAN_LIMITS[Plan.PROFESSIONAL].rate_limit_per_minute
    )


def test_the_free_plan_has_none_and_a_paid_plan_its_number(runtime_api: Api, org: Organisation) -> None:
    free = runtime_api.with_key(make_account().live_key)
    assert_error(free.post("/v3/subaccounts", json={"name": "n", "slug": "n"}), 403, "plan_limit_reached")
    for n in range(PLAN_LIMITS[Plan.PROFESSIONAL].subaccounts - len(org.subs)):
        assert org.api.post("/v3/subaccounts", json={"name": "n", "slug": f"n{n}"}).status_code == 201
    assert_error(org.api.post("/v3/subaccounts", json={"name": "n", "slug": "over"}), 403, "plan_limit_reached")
    # A subaccount has none of its own, on any plan.
    acting = org.on_behalf("acme")("POST", "/v3/subaccounts", json={"name": "n", "slug": "nested"})
    assert_error(acting, 403, "organisation_only")


def test_a_live_send_on_behalf_is_delivered_from_the_subaccounts_domain(runtime: Any, org: Organisation) -> None:
    acme = org.on_behalf("acme")
    domain = _verified_domain(org.subs["acme"]["id"])
    to = recipient()
    sent = accepted(
        acme("POST", "/v3/messages", json={"from": f"hi@{domain}", "to": [to], "subject": "S", "text": "t"})
    )
    settle(runtime, sent["id"])
    assert acme("GET", f"/v3/messages/{sent['id']}").json()["status"] == "delivered"
    [copy] = mail_for(runtime, sent["id"])
    assert f"d={domain}" in str(parse(copy)["DKIM-Signature"]).replace(" ", "")
    # The message is the subaccount's: the organisation's own view and the sibling's do not have it.
    assert_error(org.api.get(f"/v3/messages/{sent['id']}"), 404, "not_found")
    assert_error(org.on_behalf("globex")("GET", f"/v3/messages/{sent['id']}"), 404, "not_found")
    assert mail_to(runtime, to)


def test_a_list_send_on_behalf_is_sent_by_the_list_worker(runtime: Any, org: Organisation) -> None:
    acme = org.on_behalf(org.subs["acme"]["id"])
    domain = _verified_domain(org.subs["acme"]["id"])
    created = acme("POST", "/v3/lists", json={"address": f"news@lists.{domain}", "name": "News"})
    assert created.status_code == 201, created.text
    members = [{"address": recipient()} for _ in range(3)]
    assert acme("POST", f"/v3/lists/{created.json()['id']}/members/bulk", json={"members": members}).ok
    body = {"from": f"news@{domain}", "to": [created.json()["address"]], "subject": "News", "text": "t"}
    response = accepted(acme("POST", "/v3/messages", json=body))
    drain(runtime)
    progress = acme("GET", f"/v3/lists/{created.json()['id']}/sends/{response['list_send_id']}").json()
    assert (progress["status"], progress["members"], progress["accepted"]) == ("done", 3, 3), progress


def test_a_key_made_on_behalf_acts_only_in_its_subaccount(org: Organisation) -> None:
    acme_key = _sub_key(org, "acme")
    assert acme_key.get("/v3/whoami").json()["account"]["id"] == org.subs["acme"]["id"]
    for reference in ("acme", "globex", org.subs["globex"]["id"], org.account.id):
        assert_error(acme_key.get("/v3/whoami", headers={"On-Behalf-Of": reference}), 403, "organisation_only")
    # Keys belong to the workspace they were made in.
    ids = [k["id"] for k in org.on_behalf("acme")("GET", "/v3/keys").json()["items"]]
    assert len(ids) == 1 and ids[0] not in [k["id"] for k in org.api.get("/v3/keys").json()["items"]]


def test_a_subaccounts_key_gets_404_for_its_parents_and_its_siblings_resources(org: Organisation) -> None:
    acme_key = _sub_key(org, "acme")

    def resources(call: Callable[..., Any]) -> list[str]:
        """One resource of each kind made by `call`; the paths that read them."""
        template = call("POST", "/v3/templates", json={"name": "t", "subject": "s"}).json()["id"]
        key = call("POST", "/v3/keys", json={"name": "k"}).json()["id"]
        hook = call("POST", "/v3/webhooks", json={"url": "http://127.0.0.1:9/h", "events": ["delivered"]}).json()["id"]
        mailing_list = call(
            "POST", "/v3/lists", json={"address": f"l-{uuid.uuid4().hex[:6]}@lists.example", "name": "L"}
        ).json()
        entry = call("POST", "/v3/suppressions", json={"type": "bounces", "email": recipient()}).json()["id"]
        return [
            f"/v3/templates/{template}",
            f"/v3/keys/{key}",
            f"/v3/webhooks/{hook}",
            f"/v3/webhooks/{hook}/deliveries",
            f"/v3/lists/{mailing_list['id']}",
            f"/v3/lists/{mailing_list['address']}/members",
            f"/v3/suppressions/{entry}",
        ]

    parents = resources(org.api.request)
    siblings = resources(org.on_behalf("globex"))
    for path in parents + siblings:
        assert org.api.get(path).status_code == 200 or path in siblings, path
        assert_error(acme_key.get(path), 404, "not_found")
    # Another organisation's full_access key cannot reach ours, by id or slug.
    other = Api(org.api.base_url, make_account(plan=Plan.PROFESSIONAL).live_key)
    for reference in (org.subs["acme"]["id"], "acme"):
        assert_error(other.get("/v3/whoami", headers={"On-Behalf-Of": reference}), 404, "not_found")
        assert_error(other.get(f"/v3/subaccounts/{reference}"), 404, "not_found")


def test_who_may_act_on_behalf(org: Organisation, console_token: Callable[..., str]) -> None:
    for scope in (Scope.SEND_ONLY, Scope.READ_ONLY):
        narrow = org.api.with_key(make_key(org.account.id, scope=scope))
        assert_error(narrow.get("/v3/whoami", headers={"On-Behalf-Of": "acme"}), 403, "insufficient_scope")
    assert_error(org.api.get("/v3/whoami", headers={"On-Behalf-Of": "nobody"}), 404, "not_found")
    assert_error(org.api.get("/v3/whoami", headers={"On-Behalf-Of": "x" * 101}), 400, "validation_error")
    test_key = org.api.with_key(org.account.test_key)  # a test key acts in test mode
    assert test_key.get("/v3/whoami", headers={"On-Behalf-Of": "acme"}).json()["api_key"]["environment"] == "test"
    token = org.api.with_key(console_token(account_id=org.account.id))
    assert (
        token.get("/v3/whoami", headers={"on-behalf-of": "globex"}).json()["account"]["id"] == org.subs["globex"]["id"]
    )


def test_suspension_refuses_the_subaccounts_keys_and_acting_for_it(org: Organisation) -> None:
    acme_key, globex_key = _sub_key(org, "acme"), _sub_key(org, "globex")
    suspended = org.api.post("/v3/subaccounts/acme/suspend")
    assert suspended.status_code == 200 and suspended.json()["status"] == "suspended"
    assert_error(acme_key.get("/v3/whoami"), 403, "account_suspended")
    assert_error(org.on_behalf("acme")("GET", "/v3/templates"), 403, "account_suspended")
    assert globex_key.get("/v3/whoami").status_code == 200
    assert org.api.get("/v3/subaccounts/acme").json()["status"] == "suspended"
    assert org.api.post("/v3/subaccounts/acme/reactivate").json()["status"] == "active"
    assert acme_key.get("/v3/whoami").status_code == 200


def test_delete_revokes_its_keys_and_it_is_gone(org: Organisation) -> None:
    acme_key = _sub_key(org, "acme")
    acme_id = org.subs["acme"]["id"]
    deleted = org.api.delete("/v3/subaccounts/acme")
    assert deleted.status_code == 200 and "1 API keys are revoked" in deleted.json()["message"]
    assert_error(acme_key.get("/v3/whoami"), 401, "unauthorized")
    assert_error(org.on_behalf(acme_id)("GET", "/v3/whoami"), 404, "not_found")
    assert_error(org.api.get(f"/v3/subaccounts/{acme_id}"), 404, "not_found")
    assert_error(org.api.delete(f"/v3/subaccounts/{acme_id}"), 404, "not_found")
    assert [s["slug"] for s in org.api.get("/v3/subaccounts").json()["items"]] == ["globex"]
    again = org.api.post("/v3/subaccounts", json={"name": "Acme again", "slug": "acme"})
    assert again.status_code == 201 and again.json()["id"] != acme_id


def test_writes_are_audited_in_both_logs_and_on_behalf_in_the_subaccounts(org: Organisation) -> None:
    acme = org.on_behalf("acme")
    assert org.api.patch("/v3/subaccounts/acme", json={"name": "Acme GmbH"}).status_code == 200
    whoami = org.api.get("/v3/whoami").json()
    for log in (org.api.request, acme):
        entry = log("GET", "/v3/audit").json()["items"][0]
        assert (entry["action"], entry["target"]) == ("subaccount.updated", org.subs["acme"]["id"])
        assert entry["actor_id"] == whoami["api_key"]["id"]
    template = acme("POST", "/v3/templates", json={"name": "t", "subject": "s"}).json()["id"]
    entry = acme("GET", "/v3/audit").json()["items"][0]
    assert (entry["action"], entry["target"], entry["account_id"]) == (
        "template.created",
        template,
        org.subs["acme"]["id"],
    )
    assert entry["actor_id"] == whoami["api_key"]["id"]  # the organisation's key did it


class _LostWrites:
    """An audit store whose separate writes are lost (a write after the change: the process ended)."""

    def record(self, entry: object) -> None:
        raise ConnectionError("the process ended before this write")


def test_the_organisations_copy_is_written_in_the_transaction_of_the_write_on_behalf(
    org: Organisation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No separate write after the change is needed: the copy went with it. A template (its create,
    update and delete each one transaction with its entry) and a key made on behalf."""
    monkeypatch.setattr(http_app.audit, "audit_store", _LostWrites)
    acme = org.on_behalf("acme")
    template = acme("POST", "/v3/templates", json={"name": "t", "subject": "s"}).json()["id"]
    assert acme("PATCH", f"/v3/templates/{template}", json={"name": "renamed"}).status_code == 200
    key = acme("POST", "/v3/keys", json={"name": "acme app"}).json()["id"]
    monkeypatch.undo()
    ours = [e for e in org.api.get("/v3/audit").json()["items"] if e["target"] in (template, key)]
    theirs = [e for e in acme("GET", "/v3/audit").json()["items"] if e["target"] in (template, key)]
    assert (
        [e["action"] for e in ours]
        == [e["action"] for e in theirs]
        == [
            "key.created",
            "template.updated",
            "template.created",
        ]
    )
    assert all(e["details"].startswith("on behalf of subaccount acme") for e in ours)
    assert [e["created_at"] for e in ours] == [e["created_at"] for e in theirs]


def test_a_write_on_behalf_is_also_in_the_organisations_log_saying_who_and_for_which_subaccount(
    org: Organisation,
) -> None:
    acme = org.on_behalf("acme")
    whoami = org.api.get("/v3/whoami").json()
    acme_id = org.subs["acme"]["id"]
    template = acme("POST", "/v3/templates", json={"name": "t", "subject": "s"}).json()["id"]
    assert acme("PATCH", f"/v3/templates/{template}", json={"name": "renamed"}).status_code == 200
    assert acme("DELETE", f"/v3/templates/{template}").status_code == 200
    theirs = [e for e in acme("GET", "/v3/audit").json()["items"] if e["target"] == template]
    ours = [e for e in org.api.get("/v3/audit").json()["items"] if e["target"] == template]
    assert (
        [e["action"] for e in ours]
        == [e["action"] for e in theirs]
        == [
            "template.deleted",
            "template.updated",
            "template.created",
        ]
    )
    for mine, its in zip(ours, theirs, strict=True):
        assert (mine["account_id"], its["account_id"]) == (org.account.id, acme_id)
        assert mine["actor_id"] == its["actor_id"] == whoami["api_key"]["id"]  # who acted
        assert mine["details"].startswith(f"on behalf of subaccount acme ({acme_id})")  # for which subaccount
        assert mine["id"] != its["id"] and mine["created_at"] == its["created_at"]
    # A refused write records nothing anywhere, and the organisation's own writes are not "on behalf".
    before = org.api.get("/v3/audit").json()["pagination"]["total_count"]
    assert acme("DELETE", f"/v3/templates/{template}").status_code == 404
    assert org.api.get("/v3/audit").json()["pagination"]["total_count"] == before
    own = org.api.post("/v3/templates", json={"name": "own", "subject": "s"}).json()["id"]
    [entry] = [e for e in org.api.get("/v3/audit").json()["items"] if e["target"] == own]
    assert entry["details"] is None or "on behalf" not in entry["details"]


def test_a_deleted_subaccounts_data_is_purged_in_the_background_and_the_organisation_told(
    runtime: Any, org: Organisation
) -> None:
    from postline.shared.dynamo import from_attrs
    from postline.shared.resources_table import account_pk
    from postline.wiring import lists, suppressions
    from tests.support import eventually

    acme, acme_id = org.on_behalf("acme"), org.subs["acme"]["id"]
    domain = acme("POST", "/v3/domains", json={"domain": f"acme-{uuid.uuid4().hex[:8]}.test"}).json()
    assert acme("POST", "/v3/templates", json={"name": "t", "subject": "s"}).status_code == 201
    listed = acme("POST", "/v3/lists", json={"address": f"news@{domain['domain']}", "name": "News"}).json()
    for n in range(3):
        assert (
            acme("POST", f"/v3/lists/{listed['id']}/members", json={"address": f"m{n}@example.com"}).status_code == 201
        )
    bounces = {"type": "bounces", "entries": [{"email": f"b{n}@example.com"} for n in range(2)]}
    assert acme("POST", "/v3/suppressions/bulk", json=bounces).status_code == 200
    globex_template = org.on_behalf("globex")("POST", "/v3/templates", json={"name": "g", "subject": "s"}).json()

    deleted = org.api.delete("/v3/subaccounts/acme")
    assert "purged in the background" in deleted.json()["message"]
    runtime.advance(5 * 60 + 1)  # the purge worker's schedule
    drain(runtime)

    def purged() -> dict[str, Any]:
        entries = org.api.get("/v3/audit").json()["items"]
        [entry] = [e for e in entries if e["action"] == "subaccount.purged"]
        return dict(entry)

    entry = eventually(purged, 60, waiting_for="the purge to finish")
    assert (entry["target"], entry["actor_type"]) == (acme_id, "system")
    assert "1 domains" in entry["details"] and "4 list_members" in entry["details"]  # 3 members, the list's item
    assert "2 suppressions" in entry["details"]
    assert domains.sending_domains().list_domains(acme_id) == []
    assert lists.lists_store().get_list(acme_id, listed["id"]) is None
    assert suppressions.suppressions().suppressed(acme_id, ["b0@example.com", "b1@example.com"]) == set()
    resources = domains.sending_domains()._db  # the runtime's tables, as the stores see them
    left = resources.query(
        TableName=domains.sending_domains()._table, KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": account_pk(acme_id)}},
    )["Items"]  # fmt: skip
    assert [from_attrs(item)["sk"] for item in left] == ["ACCOUNT"]  # the trashed tombstone only
    # The sibling keeps everything.
    assert org.on_behalf("globex")("GET", f"/v3/templates/{globex_template['id']}").status_code == 200
