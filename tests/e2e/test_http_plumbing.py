"""Error shapes, unknown routes, pagination bounds and the usage report over HTTP."""

from __future__ import annotations

import pytest

from postline.accounts.domain import Plan
from tests.e2e.support import Api, assert_error, make_account

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("method", "path"), [("GET", "/v3/nothing"), ("GET", "/nope"), ("PUT", "/v3/whoami")])
def test_unknown_routes_are_404_in_the_error_shape(runtime_api: Api, method: str, path: str) -> None:
    assert_error(runtime_api.request(method, path), 404, "not_found")


@pytest.mark.parametrize("path", ["/v3/keys", "/v3/audit"])
@pytest.mark.parametrize("query", ["page=0", "per_page=0", "per_page=101", "page=abc", "per_page=-1"])
def test_page_bounds_are_validation_errors(api: Api, path: str, query: str) -> None:
    assert_error(api.get(f"{path}?{query}"), 400, "validation_error")


def test_a_page_past_the_end_is_empty_with_the_true_totals(api: Api) -> None:
    body = api.get("/v3/keys?page=999&per_page=100").json()
    assert body["items"] == []
    assert body["pagination"]["page"] == 999 and body["pagination"]["total_count"] >= 2


def test_keys_pages_partition_the_list(runtime_api: Api) -> None:
    admin = runtime_api.with_key(make_account().live_key)
    for n in range(3):
        admin.post("/v3/keys", json={"name": f"k{n}"})
    pages = [admin.get(f"/v3/keys?per_page=2&page={p}").json() for p in (1, 2, 3)]
    assert [len(p["items"]) for p in pages] == [2, 2, 1]
    assert {p["pagination"]["total_pages"] for p in pages} == {3}
    ids = [item["id"] for p in pages for item in p["items"]]
    assert len(set(ids)) == 5


@pytest.mark.parametrize(("plan", "daily"), [(Plan.FREE, True), (Plan.PROFESSIONAL, False)])
def test_usage_reports_the_plan(runtime_api: Api, plan: Plan, daily: bool) -> None:
    usage = runtime_api.with_key(make_account(plan=plan).live_key).get("/v3/usage").json()
    assert usage["plan"] == plan.value and usage["quota_source"] == "own_plan"
    assert usage["emails"]["used"] == 0 and usage["emails"]["remaining"] == usage["emails"]["limit"]
    assert (usage["daily"] is not None) is daily
    assert usage["rate_limit_per_minute"] is None
    assert usage["period"]["start"] < usage["period"]["end"]


def test_usage_reports_an_account_rate_limit(runtime_api: Api) -> None:
    usage = runtime_api.with_key(make_account(rate_limit=42).live_key).get("/v3/usage").json()
    assert usage["rate_limit_per_minute"] == 42
