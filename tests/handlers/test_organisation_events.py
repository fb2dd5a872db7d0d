"""An organisation's reads of its subaccounts (the `subaccount` filter) and a domain's sharing,
through their Lambda handlers from events/*.json."""

from __future__ import annotations

import uuid

from postline.accounts.domain import Plan
from postline.wiring import operator
from tests.handlers.conftest import Invoke, body


def test_the_subaccount_filter_reads_the_organisations_subaccount_only(invoke: Invoke) -> None:
    slug = f"views-{uuid.uuid4().hex[:8]}"
    assert invoke("create_subaccount", slug=slug)["statusCode"] == 201
    for name in ("list_events_subaccount", "metrics_summary_subaccount"):
        found = invoke(name, subaccount=slug)
        assert found["statusCode"] == 200, found["body"]
        missing = invoke(name, subaccount="nobody")
        assert (missing["statusCode"], body(missing)["error"]["code"]) == (404, "not_found"), name
    assert body(invoke("list_events_subaccount", subaccount=slug))["items"] == []  # nothing of the organisation's


def test_the_owner_shares_a_domain_with_its_company_and_an_outside_account(invoke: Invoke) -> None:
    created = body(invoke("create_domain", domain_name=f"shared-{uuid.uuid4().hex[:8]}.example"))
    outsider = operator.operator_service().create_account(name="outsider", plan=Plan.FREE)
    shared = invoke("update_domain_sharing", domain_id=created["id"], external_account=outsider.id)
    assert shared["statusCode"] == 200, shared["body"]
    view = body(shared)
    assert (view["shared_with_company"], view["shared_external"], view["external_accounts"]) == (
        True,
        True,
        [outsider.id],
    )
    unknown = invoke("update_domain_sharing", domain_id=created["id"], external_account="acct_nobody")
    assert (unknown["statusCode"], body(unknown)["error"]["code"]) == (400, "validation_error")
