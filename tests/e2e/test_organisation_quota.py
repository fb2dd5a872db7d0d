"""The organisation's shared quota pool on the embedded runtime, over HTTP: two subaccounts
(quota_source shared_pool) sending concurrently draw from their parent's monthly counter; exactly
the pool's room is accepted, the rest answer 429, and /v3/usage shows the same pool on each. Then
pay-as-you-go: credits granted by the operator CLI spent once the plan's allowance is, 429 without
Retry-After at zero, lifted by a top-up."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from postline import cli
from postline.accounts.domain import PLAN_LIMITS, Plan
from postline.domains.domain import DomainStatus, SendingDomain
from postline.usage.domain import day_key, month_key
from postline.usage.quota import EmailLimits, email_limits
from postline.wiring import domains, operator, usage
from tests.e2e.sending_support import DKIM_SELECTOR, dkim_private_pem, now, recipient
from tests.e2e.support import Api, assert_error, make_account, run_cli

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
    # The parent's pool (its plan's monthly quota) with only ROOM emails left this month. The shared
    # runtime's clock is wherever earlier tests moved it: away from a month's end first, so that the
    # sends below count in the month the room was made in.
    moment = now(runtime)
    if moment.day >= 27:
        runtime.advance(6 * 86400)
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
        if response.status_code == 429:  # the refusal names the organisation's pool and its limit
            message = response.json()["error"]["message"]
            assert f"monthly quota of {limit} emails of the organisation's shared pool (e2e, account {parent.id})" in (
                message
            ), message
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


def test_payg_credits_are_spent_past_the_plans_allowance_and_a_top_up_lifts_the_stop(
    runtime: Any, runtime_api: Api
) -> None:
    account = make_account()
    api = runtime_api.with_key(account.live_key)
    domain = _domain(account.id)
    moment = now(runtime)
    allowance = PLAN_LIMITS[Plan.FREE].monthly_emails
    spent = usage.counter_store().consume_emails(
        account.id, allowance, month=month_key(moment), day=day_key(moment), limits=EmailLimits(None, None, False)
    )
    assert spent is None  # the month's allowance (and the day's cap) spent

    def send() -> Any:
        return api.post("/v3/messages", json={"from": f"hi@{domain}", "to": [recipient()], "subject": "S", "text": "t"})

    stopped = send()
    assert_error(stopped, 429, "rate_limit_exceeded")
    assert "Retry-After" in stopped.headers  # the plan's stop: its window resets
    granted = run_cli(runtime, "account", "grant-credits", account.id, "2")
    assert granted == {"id": account.id, "quota_source": "payg_credits", "credits": 2}
    shown = api.get("/v3/usage").json()
    assert (shown["quota_source"], shown["payg_credits"]) == (
        "payg_credits",
        {"remaining": 2, "account_id": account.id},
    )
    assert [send().status_code for _ in range(2)] == [202, 202]
    assert api.get("/v3/usage").json()["payg_credits"]["remaining"] == 0
    at_zero = send()
    assert_error(at_zero, 429, "rate_limit_exceeded")
    assert "Retry-After" not in at_zero.headers  # no window to wait for: a top-up lifts it
    run_cli(runtime, "account", "grant-credits", account.id, "1")
    assert send().status_code == 202
    assert usage.counter_store().credits(account.id) == 0


def test_the_operator_moves_a_subaccount_between_the_pool_and_its_own_plan(
    runtime: Any, runtime_api: Api, capsys: pytest.CaptureFixture[str]
) -> None:
    """`postline account set-quota-source`: the first as an operator runs it, the rest in-process."""
    parent = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(parent.live_key)
    created = api.post("/v3/subaccounts", json={"name": "Own", "slug": "own"})
    assert created.status_code == 201, created.text
    sub = created.json()["id"]
    domain = _domain(sub)

    def as_own(method: str, path: str, **kwargs: Any) -> Any:
        return api.request(method, path, headers={"On-Behalf-Of": "own"}, **kwargs)

    body = {"from": f"hi@{domain}", "to": [recipient()], "subject": "S", "text": "t"}
    pooled = api.get("/v3/usage").json()["emails"]["used"]
    moved = run_cli(runtime, "account", "set-quota-source", sub, "own_plan")
    assert moved == {"id": sub, "quota_source": "own_plan", "parent_account_id": parent.id}
    assert as_own("POST", "/v3/messages", json=body).status_code == 202
    seen = as_own("GET", "/v3/usage").json()
    assert (seen["quota_source"], seen["plan"], seen["emails"]["limit"], seen["emails"]["used"]) == (
        "own_plan",
        "free",
        PLAN_LIMITS[Plan.FREE].monthly_emails,
        1,
    )
    assert api.get("/v3/usage").json()["emails"]["used"] == pooled  # not the pool's

    assert cli.main(["account", "set-quota-source", sub, "shared_pool"]) == 0
    assert as_own("POST", "/v3/messages", json=body).status_code == 202
    seen = as_own("GET", "/v3/usage").json()
    assert (seen["quota_source"], seen["emails"]["limit"], seen["emails"]["used"]) == (
        "shared_pool",
        PLAN_LIMITS[Plan.PROFESSIONAL].monthly_emails,
        pooled + 1,
    )
    [entry, *_] = [
        e for e in as_own("GET", "/v3/audit").json()["items"] if e["action"] == "account.quota_source_changed"
    ]
    assert entry["details"] == "quota source shared_pool"

    capsys.readouterr()
    with pytest.raises(SystemExit, match="not a subaccount"):
        cli.main(["account", "set-quota-source", parent.id, "shared_pool"])
