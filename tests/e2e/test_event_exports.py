"""Event exports on the embedded runtime: POST /v3/events/export, the exporter worker fed by the
runtime's SQS pump, GET /v3/events/export/{id} and the CSV behind its presigned download_url."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
import requests

from tests.e2e.sending_support import accepted, drain, iso, message, now, recipient, settle, unverified_sender
from tests.e2e.support import Api, assert_error, make_account
from tests.support import eventually

pytestmark = pytest.mark.e2e

JOB_FIELDS = {
    "id",
    "status",
    "filename",
    "row_count",
    "download_url",
    "error_message",
    "created_at",
    "completed_at",
    "expires_at",
}


@pytest.fixture(scope="module")
def owner(runtime: Any) -> Api:
    """A fresh account with three test-key sends: 9 events (queued, sent, then delivered or bounced)."""
    sender = unverified_sender(runtime)
    ids = [
        accepted(sender.test.post("/v3/messages", json=message(sender.address, to, **fields)))["id"]
        for to, fields in (
            (recipient("ann"), {"tags": ["invoice"], "metadata": {"order": "A-1"}}),
            ("bounce@simulator.postline.dev", {"tags": ["invoice"], "metadata": {"order": "A-2"}}),
            (recipient("bob"), {"tags": ["welcome"]}),
        )
    ]
    settle(runtime, *ids)

    def listed() -> int:
        count: int = sender.test.get("/v3/events").json()["total_count"]
        assert count >= 9, f"{count} of the 9 events listed"
        return count

    eventually(listed, 10, waiting_for="the owner's 9 events to be listed")
    return sender.test


def _window(runtime: Any) -> dict[str, str]:
    return {"since": iso(now(runtime) - timedelta(hours=1)), "until": iso(now(runtime))}


def _finished(api: Api, runtime: Any, export_id: str) -> dict[str, Any]:
    """Drains the runtime (the exporter runs from its queue) until the job ends."""

    def ended() -> dict[str, Any]:
        drain(runtime)
        job: dict[str, Any] = api.get(f"/v3/events/export/{export_id}").json()
        assert job["status"] not in ("pending", "processing"), job
        return job

    return eventually(ended, 60, waiting_for=f"export {export_id} to end")


def test_an_export_is_written_and_downloads_as_csv(owner: Api, runtime: Any) -> None:
    response = owner.post("/v3/events/export", json={**_window(runtime), "format": "csv"})
    assert response.status_code == 202, response.text
    started = response.json()
    assert set(started) == {"export_id", "status"} and started["status"] in ("pending", "processing")

    job = _finished(owner, runtime, started["export_id"])
    assert set(job) == JOB_FIELDS
    assert (job["id"], job["status"], job["row_count"], job["error_message"]) == (
        started["export_id"],
        "completed",
        9,
        None,
    )
    assert job["filename"].endswith(".csv") and job["completed_at"] and job["expires_at"] > job["completed_at"]

    download = requests.get(job["download_url"], timeout=30)
    assert download.status_code == 200
    rows = list(csv.reader(io.StringIO(download.text)))
    assert rows[0] == ["id", "type", "message_id", "recipient", "timestamp", "tags", "metadata"]
    listed = owner.get("/v3/events", params={"limit": 300}).json()["items"]
    assert [row[0] for row in rows[1:]] == [item["id"] for item in listed]  # newest first, as listed
    assert [row[1] for row in rows[1:]] == [item["type"] for item in listed]


def test_an_export_applies_the_filters(owner: Api, runtime: Any) -> None:
    body = {**_window(runtime), "tag": "invoice", "event": "queued", "metadata": {"order": "A-2"}}
    job = _finished(owner, runtime, accepted(owner.post("/v3/events/export", json=body))["export_id"])
    assert (job["status"], job["row_count"]) == ("completed", 1)
    rows = list(csv.reader(io.StringIO(requests.get(job["download_url"], timeout=30).text)))
    (row,) = rows[1:]
    assert row[1] == "queued" and '"order":"A-2"' in row[6] and row[5] == '["invoice"]'


def test_another_accounts_export_is_not_found(owner: Api, runtime: Any) -> None:
    export_id = accepted(owner.post("/v3/events/export", json={**_window(runtime), "tag": "welcome"}))["export_id"]
    stranger = Api(runtime.base_url, make_account().test_key)
    assert_error(stranger.get(f"/v3/events/export/{export_id}"), 404, "not_found")
    assert_error(owner.get("/v3/events/export/00000000-0000-0000-0000-000000000000"), 404, "not_found")


def test_invalid_exports_are_validation_errors(owner: Api, runtime: Any) -> None:
    window = _window(runtime)
    for body in (
        {"until": window["until"]},
        {"since": window["since"]},
        {**window, "until": iso(now(runtime) + timedelta(minutes=5))},
        {**window, "since": iso(now(runtime) - timedelta(days=31))},  # a Free account keeps 30 days
        {"since": window["until"], "until": window["since"]},
        {**window, "format": "xlsx"},
        {**window, "event": "duplicate"},
        {**window, "metadata": {f"k{n}": "v" for n in range(4)}},
        {**window, "colour": "blue"},
    ):
        assert_error(owner.post("/v3/events/export", json=body), 400, "validation_error")
