"""Domains shared with the company, on the embedded runtime over HTTP: the organisation shares a
verified domain (the operator's `postline domain share`); a subaccount lists it read-only with its
owner's name, sends live from it (delivered to the mail sink, DKIM d= the shared domain, the owner's
return-path), and gets 403 shared_domain_owner_only for the owner's actions; another organisation
and an unshared domain stay 404 / domain_not_verified; unsharing, written by another function
instance, refuses the next send at once while messages already accepted still go."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline.accounts.domain import Plan
from postline.config import ContentKey, Resources
from postline.domains.domain import DomainStatus, SendingDomain
from postline.domains.service import OWNER_ONLY
from postline.domains.store import DynamoSendingDomains
from postline.wiring import domains
from postline.wiring.registry import client, settings
from tests.e2e.sending_support import (
    DKIM_SELECTOR,
    accepted,
    dkim_private_pem,
    events_of,
    has_types,
    iso,
    mail_for,
    now,
    parse,
    recipient,
    settle,
)
from tests.e2e.support import Api, assert_error, make_account

pytestmark = pytest.mark.e2e


def _verified_domain(account_id: str) -> SendingDomain:
    domain = SendingDomain(
        account_id=account_id,
        id=f"dom_{uuid.uuid4().hex[:8]}",
        created_at=datetime.now(UTC),
        domain=f"shared-{uuid.uuid4().hex[:10]}.test",
        status=DomainStatus.VERIFIED,
        dkim_selector=DKIM_SELECTOR,
        dkim_private_key=dkim_private_pem(),
    )
    domains.sending_domains().put_domain(domain)
    return domain


def test_a_subaccount_sends_from_a_domain_its_parent_shares_and_cannot_change_it(
    runtime: Any, runtime_api: Api
) -> None:
    parent = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(parent.live_key)
    created = api.post("/v3/subaccounts", json={"name": "Acme", "slug": "acme"})
    assert created.status_code == 201, created.text
    acme = created.json()

    def as_acme(method: str, path: str, **kwargs: Any) -> Any:
        return api.request(method, path, headers={"On-Behalf-Of": "acme"}, **kwargs)

    owned = _verified_domain(parent.id)
    body = {"from": f"hi@{owned.domain}", "to": [recipient()], "subject": "S", "text": "t"}
    # Not shared yet: the subaccount neither sees it nor sends from it.
    assert_error(as_acme("GET", f"/v3/domains/{owned.id}"), 404, "not_found")
    refused = accepted(as_acme("POST", "/v3/messages", json=body))
    found = events_of(refused["id"], until=has_types("queued", "rejected"))
    assert [e.data for e in found if e.type.value == "rejected"] == [{"reason": "domain_not_verified"}]

    domains.domain_service().set_sharing(parent.id, owned.id, with_company=True)

    listed = as_acme("GET", "/v3/domains").json()
    [view] = [d for d in listed["items"] if d["id"] == owned.id]
    assert (view["shared_with_company"], view["owner_workspace_name"]) == (True, "e2e")  # the parent's name
    assert as_acme("GET", f"/v3/domains/{owned.id}").json()["domain"] == owned.domain

    sent = accepted(as_acme("POST", "/v3/messages", json=body))
    settle(runtime, sent["id"])
    assert as_acme("GET", f"/v3/messages/{sent['id']}").json()["status"] == "delivered"
    [copy] = mail_for(runtime, sent["id"])
    assert f"d={owned.domain}" in str(parse(copy)["DKIM-Signature"]).replace(" ", "")
    assert copy["mail_from"].endswith(f"@{owned.return_path_host}")  # the owner's return-path

    # The owner's actions stay the owner's.
    for method, path, kwargs in (
        ("PATCH", f"/v3/domains/{owned.id}", {"json": {"tracking_subdomain": "links"}}),
        ("DELETE", f"/v3/domains/{owned.id}", {}),
        ("POST", f"/v3/domains/{owned.id}/verify", {}),
        ("POST", f"/v3/domains/{owned.id}/dkim/rotate", {}),
    ):
        assert_error(as_acme(method, path, **kwargs), 403, "shared_domain_owner_only")
    assert api.get(f"/v3/domains/{owned.id}").json()["status"] == "verified"

    # Another organisation sees nothing of it.
    other = runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL).live_key)
    assert_error(other.get(f"/v3/domains/{owned.id}"), 404, "not_found")
    assert acme["parent_account_id"] == parent.id


def test_the_owner_shares_through_the_api_with_its_company_and_grants_an_outside_account(
    runtime: Any, runtime_api: Api
) -> None:
    parent = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(parent.live_key)
    assert api.post("/v3/subaccounts", json={"name": "Globex", "slug": "globex"}).status_code == 201
    outsider = make_account(plan=Plan.PROFESSIONAL)
    outside = runtime_api.with_key(outsider.live_key)
    owned = _verified_domain(parent.id)
    body = {"from": f"hi@{owned.domain}", "to": [recipient()], "subject": "S", "text": "t"}

    def as_globex(method: str, path: str, **kwargs: Any) -> Any:
        return api.request(method, path, headers={"On-Behalf-Of": "globex"}, **kwargs)

    shared = api.patch(
        f"/v3/domains/{owned.id}", json={"shared_with_company": True, "external_accounts": [outsider.id]}
    )
    assert shared.status_code == 200, shared.text
    view = shared.json()
    assert (view["shared_with_company"], view["shared_external"], view["external_accounts"]) == (
        True,
        True,
        [outsider.id],
    )
    [entry] = [e for e in api.get("/v3/audit").json()["items"] if e["action"] == "domain.updated"]
    assert entry["target"] == owned.id and "external_accounts" in entry["details"]

    # The company's workspace and the outside account both send from it, signed as the owner's.
    for send in (lambda: as_globex("POST", "/v3/messages", json=body), lambda: outside.post("/v3/messages", json=body)):
        sent = accepted(send())
        settle(runtime, sent["id"])
        [copy] = mail_for(runtime, sent["id"])
        assert f"d={owned.domain}" in str(parse(copy)["DKIM-Signature"]).replace(" ", "")
    read = outside.get(f"/v3/domains/{owned.id}").json()
    assert (read["shared_external"], read["external_accounts"], read["owner_workspace_name"]) == (True, None, "e2e")
    assert_error(outside.patch(f"/v3/domains/{owned.id}", json={"external_accounts": []}), 403, OWNER_ONLY)
    assert_error(outside.delete(f"/v3/domains/{owned.id}"), 403, OWNER_ONLY)
    assert_error(
        api.patch(f"/v3/domains/{owned.id}", json={"external_accounts": ["acct_nobody"]}), 400, "validation_error"
    )

    # Revoked: the outside account's next send is refused at once, and the domain is gone from its view.
    assert api.patch(f"/v3/domains/{owned.id}", json={"external_accounts": []}).json()["shared_external"] is False
    refused = accepted(outside.post("/v3/messages", json=body))
    found = events_of(refused["id"], until=has_types("queued", "rejected"))
    assert [e.data for e in found if e.type.value == "rejected"] == [{"reason": "domain_not_verified"}]
    assert_error(outside.get(f"/v3/domains/{owned.id}"), 404, "not_found")


def test_unsharing_refuses_the_next_send_at_once_and_an_accepted_message_still_goes(
    runtime: Any, runtime_api: Api
) -> None:
    """The unshare is written by another function instance (the domains route's container, or the
    operator's CLI) than the one that screens sends, so only the store's own reads can see it: the
    sender's cache of the owner's domain must not keep the share alive."""
    parent = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(parent.live_key)
    assert api.post("/v3/subaccounts", json={"name": "Initech", "slug": "initech"}).status_code == 201
    outsider = make_account(plan=Plan.PROFESSIONAL)
    outside = runtime_api.with_key(outsider.live_key)
    owned = _verified_domain(parent.id)
    body = {"from": f"hi@{owned.domain}", "to": [recipient()], "subject": "S", "text": "t"}

    def as_initech(method: str, path: str, **kwargs: Any) -> Any:
        return api.request(method, path, headers={"On-Behalf-Of": "initech"}, **kwargs)

    shared = api.patch(
        f"/v3/domains/{owned.id}", json={"shared_with_company": True, "external_accounts": [outsider.id]}
    )
    assert shared.status_code == 200, shared.text
    sends = (lambda **extra: as_initech("POST", "/v3/messages", json={**body, **extra}),
             lambda **extra: outside.post("/v3/messages", json={**body, **extra}))  # fmt: skip
    delivered = [accepted(send())["id"] for send in sends]  # the sender's instance now holds the domain
    settle(runtime, *delivered)
    later = iso(now(runtime) + timedelta(hours=2))
    scheduled = [accepted(send(send_at=later))["id"] for send in sends]  # accepted, not yet sent

    elsewhere = DynamoSendingDomains(
        client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id
    )
    current = elsewhere.get_domain(parent.id, owned.id)
    assert current is not None
    unshared = current.model_copy(update={"shared_with_company": False, "external_accounts": []})
    assert elsewhere.save_domain(unshared, expected_revision=current.revision, audit=None, revoked=[outsider.id])

    # The very next send of each is refused: no cache lets it through.
    for send in sends:
        refused = accepted(send())
        found = events_of(refused["id"], until=has_types("queued", "rejected"))
        assert [e.data for e in found if e.type.value == "rejected"] == [{"reason": "domain_not_verified"}]

    # What was accepted while shared still goes, signed as the owner's, under its return-path.
    runtime.advance(timedelta(hours=2, minutes=1).total_seconds())
    assert set(settle(runtime, *scheduled).values()) == {"delivered"}
    for message_id in scheduled:
        [copy] = mail_for(runtime, message_id)
        assert f"d={owned.domain}" in str(parse(copy)["DKIM-Signature"]).replace(" ", "")
        assert copy["mail_from"].endswith(f"@{owned.return_path_host}")
    assert_error(outside.get(f"/v3/domains/{owned.id}"), 404, "not_found")  # the revoked grant shows nothing
