"""The IP pool routes through their Lambda handlers, from events/*.json."""

from __future__ import annotations

import uuid

import pytest

from postline import wiring
from postline.config import PoolProvisioning
from postline.ip_pools.ses import SesDedicatedPools
from postline.wiring import ip_pools as ip_pools_root
from postline.wiring import registry
from tests.handlers.conftest import Invoke, body
from tests.support import SesEventDestinations


@pytest.fixture(autouse=True)
def _ses(monkeypatch: pytest.MonkeyPatch) -> SesEventDestinations:
    sesv2 = SesEventDestinations(registry.client("sesv2"))
    provisioning = wiring.settings(PoolProvisioning)
    pools = SesDedicatedPools(
        sesv2, enabled=provisioning.transport == "ses", feedback_topic_arn=provisioning.feedback_topic_arn
    )
    monkeypatch.setattr(ip_pools_root, "ses_pools", lambda: pools)
    return sesv2


def test_an_ip_pools_life_through_the_sample_events(invoke: Invoke, dev: dict[str, str]) -> None:
    name = f"warm-{uuid.uuid4().hex[:8]}"
    created = invoke("create_ip_pool", pool_name=name)
    assert created["statusCode"] == 201, created["body"]
    pool = body(created)
    assert (pool["account_id"], pool["name"], pool["type"], pool["default"]) == (
        dev["account_id"],
        name,
        "warming",
        True,
    )

    listed = body(invoke("list_ip_pools"))
    assert pool in listed["items"] and listed["pagination"]["page"] == 1
    assert body(invoke("get_ip_pool", pool=pool["id"])) == pool
    renamed = body(invoke("update_ip_pool", pool=pool["id"], pool_name=f"{name}-2"))
    assert renamed["name"] == f"{name}-2" and renamed["default"] is True
    assert set(body(invoke("list_ips"))) == {"items", "pagination"}

    again = invoke("create_ip_pool", pool_name=name + "-2")  # the same name as the renamed pool
    assert (again["statusCode"], body(again)["error"]["code"]) == (400, "validation_error")
    missing = invoke("get_ip_pool", pool=str(uuid.uuid4()))
    assert (missing["statusCode"], body(missing)["error"]["code"]) == (404, "not_found")
    unknown = invoke("assign_ip", pool=pool["id"], ip="192.0.2.250")  # an address the operator never allocated
    assert unknown["statusCode"] in (400, 404), unknown["body"]
    assert body(unknown)["error"]["code"] in ("validation_error", "not_found")
    deleted = invoke("delete_ip_pool", pool=pool["id"])
    assert deleted["statusCode"] == 200, deleted["body"]
    assert invoke("get_ip_pool", pool=pool["id"])["statusCode"] == 404
