"""The subaccount routes and the On-Behalf-Of header through their Lambda handlers, from events/*.json."""

from __future__ import annotations

import uuid

from tests.handlers.conftest import Invoke, body


def test_a_subaccounts_lifecycle_through_the_sample_events(invoke: Invoke, dev: dict[str, str]) -> None:
    slug = f"acme-{uuid.uuid4().hex[:8]}"
    created = invoke("create_subaccount", slug=slug)
    assert created["statusCode"] == 201, created["body"]
    sub = body(created)
    assert (sub["parent_account_id"], sub["name"], sub["slug"], sub["status"]) == (
        dev["account_id"], "Acme Inc", slug, "active")  # fmt: skip

    listed = body(invoke("list_subaccounts"))
    assert sub in listed["items"] and listed["pagination"]["page"] == 1
    assert (
        body(invoke("get_subaccount", subaccount=sub["id"])) == body(invoke("get_subaccount", subaccount=slug)) == sub
    )
    assert body(invoke("update_subaccount", subaccount=slug))["name"] == "Acme GmbH"

    assert body(invoke("whoami_on_behalf_of", subaccount=slug))["account"]["id"] == sub["id"]
    assert body(invoke("suspend_subaccount", subaccount=sub["id"]))["status"] == "suspended"
    suspended = invoke("whoami_on_behalf_of", subaccount=slug)
    assert (suspended["statusCode"], body(suspended)["error"]["code"]) == (403, "account_suspended")
    assert body(invoke("reactivate_subaccount", subaccount=sub["id"]))["status"] == "active"
    acting = body(invoke("whoami_on_behalf_of", subaccount=sub["id"]))
    assert acting["account"]["id"] == sub["id"] and acting["api_key"]["id"] == dev["live_key_id"]

    assert invoke("delete_subaccount", subaccount=sub["id"])["statusCode"] == 200
    for name in ("get_subaccount", "whoami_on_behalf_of"):
        gone = invoke(name, subaccount=sub["id"])
        assert (gone["statusCode"], body(gone)["error"]["code"]) == (404, "not_found")


def test_refusals_have_their_codes(invoke: Invoke) -> None:
    slug = f"fixed-{uuid.uuid4().hex[:8]}"
    assert invoke("create_subaccount", slug=slug)["statusCode"] == 201
    for name, placeholders, status, code in [
        ("create_subaccount_invalid_slug", {}, 400, "validation_error"),
        ("update_subaccount_slug", {"subaccount": slug}, 400, "validation_error"),
        ("get_subaccount", {"subaccount": "nobody"}, 404, "not_found"),
        ("whoami_on_behalf_of", {"subaccount": "nobody"}, 404, "not_found"),
        ("whoami_on_behalf_of_twice", {"subaccount": slug}, 400, "validation_error"),
    ]:
        response = invoke(name, **placeholders)
        assert (response["statusCode"], body(response)["error"]["code"]) == (status, code), name
