"""What an organisation sees of its subaccounts, on the embedded runtime over HTTP: their events and
metrics only through On-Behalf-Of or the explicit `subaccount` filter of GET /v3/events and
GET /v3/metrics/* (any scope of the organisation's key), or the breakdown by subaccount; its own
reads never include them, a sibling's filter never shows another's, and another organisation or a
subaccount's own key is refused (404 / 403 organisation_only)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
import requests

from postline.accounts.domain import Plan
from postline.keys.access import Environment, Scope
from tests.e2e.sending_support import accepted, drain, iso, message, now, recipient, settle
from tests.e2e.support import Api, assert_error, make_account, make_key
from tests.support import eventually

pytestmark = pytest.mark.e2e


def test_the_organisation_reads_a_subaccounts_events_and_metrics_only_by_asking(runtime: Any, runtime_api: Api) -> None:
    parent = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(parent.test_key)  # test mode: simulated sends, no domain needed
    live = runtime_api.with_key(parent.live_key)
    for slug in ("acme", "globex"):
        assert live.post("/v3/subaccounts", json={"name": slug.title(), "slug": slug}).status_code == 201
    start = now(runtime)

    def send(on_behalf: str | None) -> str:
        headers = {"On-Behalf-Of": on_behalf} if on_behalf else {}
        body = message("hi@org-views.test", recipient())
        return str(accepted(api.request("POST", "/v3/messages", json=body, headers=headers))["id"])

    acme = [send("acme"), send("acme")]
    globex, own = send("globex"), send(None)
    settle(runtime, *acme, globex, own)

    def events(key_api: Api, **params: str) -> dict[str, Any]:
        response = key_api.get("/v3/events", params={"limit": "300", **params})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    # Its own reads never include a subaccount's events.
    assert events(api, message_id=acme[0])["total_count"] == 0
    assert {e["message_id"] for e in events(api)["items"]} == {own}
    # The filter, by slug or id, shows exactly that subaccount's; a sibling's shows none of them.
    acme_id = api.get("/v3/subaccounts/acme").json()["id"]
    assert {e["message_id"] for e in events(api, subaccount="acme")["items"]} == set(acme)
    assert {e["message_id"] for e in events(api, subaccount=acme_id, message_id=acme[1])["items"]} == {acme[1]}
    assert events(api, subaccount="globex", message_id=acme[0])["total_count"] == 0
    # A read_only key of the organisation may filter (it only reads); On-Behalf-Of would need full_access.
    reader = runtime_api.with_key(make_key(parent.id, env=Environment.TEST, scope=Scope.READ_ONLY))
    assert {e["message_id"] for e in events(reader, subaccount="globex")["items"]} == {globex}
    assert_error(reader.get("/v3/events", headers={"On-Behalf-Of": "globex"}), 403, "insufficient_scope")

    # Another organisation, a deleted name, and a subaccount's own credential are refused.
    other = runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL).test_key)
    assert_error(other.get("/v3/events", params={"subaccount": "acme"}), 404, "not_found")
    assert_error(other.get("/v3/metrics/summary", params={"subaccount": acme_id}), 404, "not_found")
    assert_error(api.get("/v3/events", params={"subaccount": "nobody"}), 404, "not_found")
    assert_error(
        api.get("/v3/events", params={"subaccount": "globex"}, headers={"On-Behalf-Of": "acme"}),
        403,
        "organisation_only",
    )
    acme_key = live.request("POST", "/v3/keys", json={"name": "acme"}, headers={"On-Behalf-Of": "acme"}).json()["key"]
    assert_error(
        runtime_api.with_key(acme_key).get("/v3/events", params={"subaccount": "globex"}), 403, "organisation_only"
    )

    # Metrics: each workspace's own counts, the organisation's without its subaccounts'.
    window = {"since": iso(start - timedelta(minutes=1)), "until": iso(now(runtime) + timedelta(minutes=1))}

    def sent(**params: str) -> int:
        response = api.get("/v3/metrics/summary", params={**window, **params})
        assert response.status_code == 200, response.text
        return int(response.json()["delivery"]["sent"])

    def counted() -> tuple[int, int, int]:
        figures = (sent(subaccount="acme"), sent(subaccount="globex"), sent())
        assert figures == (2, 1, 1), figures
        return figures

    eventually(counted, 30, waiting_for="the roll-ups to count every workspace's sends")
    series = api.get("/v3/metrics/timeseries", params={**window, "subaccount": "acme", "resolution": "hour"}).json()
    assert sum(point["sent"] for point in series["data"]) == 2
    breakdown = api.get(
        "/v3/metrics/breakdown", params={**window, "subaccount": "globex", "dimension": "recipient_domain"}
    ).json()
    assert [(row["key"], row["sent"]) for row in breakdown["data"]] == [("example.com", 1)]

    # The breakdown by subaccount: a row per subaccount (key its id, label its slug), none of its own.
    by_sub = api.get("/v3/metrics/breakdown", params={**window, "dimension": "subaccount"})
    assert by_sub.status_code == 200, by_sub.text
    globex_id = api.get("/v3/subaccounts/globex").json()["id"]
    rows = [(row["key"], row["label"], row["sent"]) for row in by_sub.json()["data"]]
    assert rows == [(acme_id, "acme", 2), (globex_id, "globex", 1)] and by_sub.json()["total"] == 2
    assert_error(
        api.get(
            "/v3/metrics/breakdown", params={**window, "dimension": "subaccount"}, headers={"On-Behalf-Of": "acme"}
        ),
        403,
        "organisation_only",
    )

    # The timeseries grouped by subaccount: `data` is the subaccounts' together, a group each.
    grouped = api.get("/v3/metrics/timeseries", params={**window, "group_by": "subaccount", "resolution": "hour"})
    assert grouped.status_code == 200, grouped.text
    assert sum(point["sent"] for point in grouped.json()["data"]) == 3
    sums = {g["key"]: sum(p["sent"] for p in g["data"]) for g in grouped.json()["groups"]}
    assert sums == {acme_id: 2, globex_id: 1}


def test_the_organisation_exports_a_subaccounts_events_with_the_filter(runtime: Any, runtime_api: Api) -> None:
    """POST /v3/events/export?subaccount=: the export is the subaccount's (its events only, read back
    with the same filter, 404 without it), audited in its log and, as a write on its behalf, in the
    organisation's; another organisation and a subaccount's own key are refused."""
    parent = make_account(plan=Plan.PROFESSIONAL)
    api = runtime_api.with_key(parent.test_key)
    live = runtime_api.with_key(parent.live_key)
    for slug in ("acme", "globex"):
        assert live.post("/v3/subaccounts", json={"name": slug.title(), "slug": slug}).status_code == 201
    sent = {
        slug: str(
            accepted(
                api.post(
                    "/v3/messages", json=message("hi@org-export.test", recipient()), headers={"On-Behalf-Of": slug}
                )
            )["id"]
        )
        for slug in ("acme", "globex")
    }
    settle(runtime, *sent.values())
    window = {"since": iso(now(runtime) - timedelta(hours=1)), "until": iso(now(runtime))}

    started = api.post("/v3/events/export", json=window, params={"subaccount": "acme"})
    assert started.status_code == 202, started.text
    export_id = started.json()["export_id"]
    assert_error(api.get(f"/v3/events/export/{export_id}"), 404, "not_found")  # not the organisation's own

    def ended() -> dict[str, Any]:
        drain(runtime)
        job: dict[str, Any] = api.get(f"/v3/events/export/{export_id}", params={"subaccount": "acme"}).json()
        assert job["status"] == "completed", job
        return job

    job = eventually(ended, 30, waiting_for=f"export {export_id} to complete")
    rows = list(csv.DictReader(io.StringIO(requests.get(job["download_url"], timeout=10).text)))
    assert rows and {row["message_id"] for row in rows} == {sent["acme"]}

    entries = {
        "acme": live.get("/v3/audit", headers={"On-Behalf-Of": "acme"}).json()["items"],
        "organisation": live.get("/v3/audit").json()["items"],
    }
    [in_acme] = [e for e in entries["acme"] if e["action"] == "events.exported"]
    [copied] = [e for e in entries["organisation"] if e["action"] == "events.exported"]
    assert in_acme["target"] == copied["target"] == export_id
    assert copied["details"].startswith("on behalf of subaccount acme")

    other = runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL).test_key)
    assert_error(other.post("/v3/events/export", json=window, params={"subaccount": "acme"}), 404, "not_found")
    acme_key = live.request("POST", "/v3/keys", json={"name": "acme"}, headers={"On-Behalf-Of": "acme"}).json()["key"]
    assert_error(
        runtime_api.with_key(acme_key).post("/v3/events/export", json=window, params={"subaccount": "globex"}),
        403,
        "organisation_only",
    )
