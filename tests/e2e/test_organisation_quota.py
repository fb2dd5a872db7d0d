"""The organisation's shared quota pool on the embedded runtime, over HTTP: two subaccounts
(quota_source shared_pool) sending concurrently draw from their parent's monthly counter; exactly
the pool's room is accepted, the rest answer 429, and /v3/usage shows the same pool on each."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from postline.accounts.domain import PLAN_LIMITS, Plan
from postline.domains.domain import DomainStatus, SendingDomain
from postline.usage.domain import day_key, month_key
from postline.usage.quota import email_limits
from postline.wiring import domains, operator, usage
from tests.e2e.sending_support import DKIM_SELECTOR, dkim_private_pem, now, recipient
from tests.e2e.support import Api, make_account

pytestmark = pytest.mark.e2e
ROOM = 4  # the pool's emails left when the subaccounts start sending
SENDS = 12  # one email each, six from each subaccount at once


def _domain(account_id: str) -> str:
    name = f"pool-{uuid.uuid4().hex[:10]}.test"
    domains.sending_domains().put_domain(
        SendingDomain(
            account_id=account_id,
            id=f"dom_{uuid.uuid4().hex[:8]}",
            created_at=datetime.now(UTC),
            domain=name,
            status=DomainStatus.VERIFIED,
            dkim_selector=DKIM_SELECTOR,
            dkim_private_key=dkim_private_pem(),
        )
    )
    return name


def test_two_subaccounts_sending_at_once_never_pass_the_pool(runtime: Any, runtime_api: Api) -> None:
    parent = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(parent.live_key)
    senders = []
    for slug in ("acme", "globex"):
        assert api.post("/v3/subaccounts", json={"name": slug, "slug": slug}).status_code == 201
        senders.append((slug, _domain(api.get(f"/v3/subaccounts/{slug}").json()["id"])))
    # The parent's pool (its plan's monthly quota) with only ROOM emails left this month.
    moment = now(runtime)
    stored = operator.operator_service().get_account(parent.id)
    limit = PLAN_LIMITS[Plan.PROFESSIONAL].monthly_emails
    month, day = month_key(moment), day_key(moment)
    assert (
        usage.counter_store().consume_emails(
            parent.id, limit - ROOM, month=month, day=day, limits=email_limits(stored, test=False)
        )
        is None
    )

    def send(n: int) -> int:
        slug, domain = senders[n % 2]
        body = {"from": f"hi@{domain}", "to": [recipient()], "subject": "S", "text": "t"}
        response = api.post("/v3/messages", json=body, headers={"On-Behalf-Of": slug})
        assert response.status_code == 429 or response.json()["status"] == "queued", response.text
        return int(response.status_code)

    with ThreadPoolExecutor(max_workers=SENDS) as pool:
        codes = list(pool.map(send, range(SENDS)))
    assert sorted(codes) == [202] * ROOM + [429] * (SENDS - ROOM), codes

    for slug, _ in senders:
        seen = api.get("/v3/usage", headers={"On-Behalf-Of": slug}).json()
        assert seen["quota_source"] == "shared_pool"
        assert (seen["emails"]["limit"], seen["emails"]["used"], seen["emails"]["remaining"]) == (limit, limit, 0)
    mine = api.get("/v3/usage").json()
    assert (mine["quota_source"], mine["emails"]["used"]) == ("own_plan", limit)
