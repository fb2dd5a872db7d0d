"""Reputation on the embedded runtime: a test key's simulated mail through the account's dedicated
pool (test copies name the pool and address a live one would leave from), counted by the roll-up
worker and evaluated by it; a run of simulated complaints drops the pool's and its address's
reputation past the danger line, and the audit log gets one alert each for the pool and the domain,
not one per evaluation."""

from __future__ import annotations

from typing import Any

import pytest

from postline.accounts.domain import Plan
from postline.metrics.reputation import MIN_SENT
from postline.metrics.reputation_service import EVERY
from tests.e2e.ip_pool_support import unused_loopback_ip
from tests.e2e.sending_support import Sender, accepted, drain, events_of, recipient, settle, verified_sender
from tests.e2e.support import Api, run_cli
from tests.support import eventually

pytestmark = pytest.mark.e2e


def _batch(runtime: Any, api: Api, sender: Sender, copies: int) -> list[str]:
    body = {
        "from": sender.address,
        "subject": "Hi",
        "text": "Hello",
        "recipients": [{"to": recipient("rep")} for _ in range(copies)],
    }
    ids: list[str] = accepted(api.post("/v3/messages.batch", json=body))["message_ids"]
    settle(runtime, *ids)
    return ids


def _counted(api: Api, sent: int, complained: int) -> None:
    """Waits until the roll-ups hold the test mode's sends and complaints so far."""

    def check() -> bool:
        delivery = api.get("/v3/metrics/summary").json()["delivery"]
        assert (delivery["sent"], delivery["complained"]) == (sent, complained), delivery
        return True

    eventually(check, 30, waiting_for="the roll-ups to count the sends")


def _evaluated(runtime: Any, sender: Sender, pool_id: str, wanted: int | None) -> dict[str, Any]:
    """Past the throttle, one more send makes the roll-up worker evaluate the account; the pool as
    a test key then reads it, once it shows `wanted`."""
    runtime.advance(EVERY.total_seconds() + 1)
    _batch(runtime, sender.test, sender, 1)
    drain(runtime)

    def check() -> dict[str, Any]:
        pool: dict[str, Any] = sender.test.get(f"/v3/ip-pools/{pool_id}").json()
        assert pool["reputation"] == wanted, pool
        return pool

    return eventually(check, 30, waiting_for=f"the pool's reputation to be {wanted}")


def _alerts(api: Api) -> list[tuple[str, str]]:
    items = api.get("/v3/audit?per_page=100").json()["items"]
    return sorted((e["action"], e["target"]) for e in items if e["action"].endswith(".reputation_danger"))


def test_simulated_complaints_lower_a_pools_reputation_and_raise_one_alert(runtime: Any) -> None:
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    pool = sender.live.post("/v3/ip-pools", json={"name": "reputation", "default": True}).json()
    ip = unused_loopback_ip()
    run_cli(runtime, "ip", "allocate", ip, "--pool", pool["id"], "--account", sender.id)
    complaining = sender.live.post(
        "/v3/keys", json={"name": "complaints", "env": "test", "test_outcomes": {"send": {"complaint": 1}}}
    )
    assert complaining.status_code == 201, complaining.text
    complaints = Api(runtime.base_url, complaining.json()["key"])

    first = _batch(runtime, sender.test, sender, MIN_SENT - 1)
    sent = events_of(first[0], until=lambda evs: any(e.type.value == "sent" for e in evs))
    assert next(e for e in sent if e.type.value == "sent").data["ip"] == ip  # a test copy names its source
    _counted(sender.test, MIN_SENT - 1, 0)
    below = sender.test.get(f"/v3/ip-pools/{pool['id']}").json()
    assert (below["reputation"], below["ip_details"]) == (None, None)  # below the minimum volume
    healthy = _evaluated(runtime, sender, pool["id"], 100)  # MIN_SENT copies
    assert healthy["ip_details"] == {ip: {"reputation": 100}}
    assert sender.live.get(f"/v3/ip-pools/{pool['id']}").json()["reputation"] is None  # live mail: none yet
    assert _alerts(sender.live) == []

    _batch(runtime, complaints, sender, 3)  # a run of complaints: 3 of 103
    _counted(sender.test, MIN_SENT + 3, 3)
    fallen = _evaluated(runtime, sender, pool["id"], 0)
    assert fallen["ip_details"] == {ip: {"reputation": 0}}
    domain_alert = ("domain.reputation_danger", sender.domain)
    assert _alerts(sender.live) == [domain_alert, ("ip_pool.reputation_danger", pool["id"])]

    _batch(runtime, complaints, sender, 2)  # still in danger at the next evaluation: no new alert
    _counted(sender.test, MIN_SENT + 6, 5)
    _evaluated(runtime, sender, pool["id"], 0)
    assert _alerts(sender.live) == [domain_alert, ("ip_pool.reputation_danger", pool["id"])]

    run_cli(runtime, "ip-pool", "set-reputation", pool["id"], "77", "--account", sender.id)
    staffed = sender.test.get(f"/v3/ip-pools/{pool['id']}").json()
    assert staffed["reputation"] == 77 and staffed["ip_details"] == {ip: {"reputation": 0}}  # staff's wins


def test_live_mail_scores_the_domain_on_the_domain_routes(runtime: Any) -> None:
    """The domain routes (live keys) show the live mail's reputation: MIN_SENT copies through the
    relay to the mail sink, all delivered, score 100; the pool they left from too."""
    sender = verified_sender(runtime, plan=Plan.PROFESSIONAL)
    pool = sender.live.post("/v3/ip-pools", json={"name": "live", "default": True}).json()
    ip = unused_loopback_ip()
    run_cli(runtime, "ip", "allocate", ip, "--pool", pool["id"], "--account", sender.id)
    (listed,) = sender.live.get("/v3/domains").json()["items"]
    assert listed["reputation"] is None
    _batch(runtime, sender.live, sender, MIN_SENT - 1)
    _counted(sender.live, MIN_SENT - 1, 0)
    runtime.advance(EVERY.total_seconds() + 1)
    _batch(runtime, sender.live, sender, 1)
    drain(runtime)

    def scored() -> dict[str, Any]:
        domain: dict[str, Any] = sender.live.get(f"/v3/domains/{listed['id']}").json()
        assert domain["reputation"] == 100, domain
        return domain

    eventually(scored, 30, waiting_for="the domain's reputation")
    assert [d["reputation"] for d in sender.live.get("/v3/domains").json()["items"]] == [100]
    seen = sender.live.get(f"/v3/ip-pools/{pool['id']}").json()
    assert (seen["reputation"], seen["ip_details"]) == (100, {ip: {"reputation": 100}})
    assert sender.test.get(f"/v3/ip-pools/{pool['id']}").json()["reputation"] is None  # test mode: none sent
