"""Every sample event in events/ through its Lambda handler, as API Gateway would deliver it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from postline.routes import ROUTES
from tests.aws_stack import ROOT
from tests.handlers.conftest import Invoke, body, header

EVENTS = sorted(p.stem for p in (ROOT / "events").glob("*.json"))


def test_every_route_has_a_sample_event() -> None:
    import json

    covered = {
        (e["httpMethod"], e["resource"])
        for e in (json.loads(Path(ROOT / "events" / f"{name}.json").read_text()) for name in EVENTS)
    }
    assert {(r.method, r.path) for r in ROUTES} <= covered


# Links in delivered mail answer what a mail client or a browser expects, not JSON.
NOT_JSON = {"track_open": "image/gif", "unsubscribe_page": "text/html; charset=utf-8"}


@pytest.mark.parametrize("name", EVENTS)
def test_every_response_is_json_with_a_request_id_and_the_rate_window(invoke: Invoke, name: str) -> None:
    response = invoke(
        name,
        key_id="key_placeholder",
        message_id="msg_placeholder",
        template_id="tpl_placeholder",
        webhook_id="wh_placeholder",
        domain_id="dom_placeholder",
        suppression_id="00000000-0000-4000-8000-000000000000",
        import_id="00000000-0000-4000-8000-000000000000",
        domain_name=f"sample-{uuid.uuid4().hex[:8]}.example",
    )
    assert header(response, "Content-Type") == NOT_JSON.get(name, "application/json")
    assert header(response, "X-Request-Id") == "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"
    # The interface puts them on every response; public routes and 401s report the source address's window.
    assert int(header(response, "X-RateLimit-Limit")) >= 600
    assert 0 <= int(header(response, "X-RateLimit-Remaining")) < int(header(response, "X-RateLimit-Limit"))
    assert 1 <= int(header(response, "X-RateLimit-Reset")) <= 60
    if response["statusCode"] >= 400:
        error = body(response)
        assert set(error) == {"error", "request_id"}
        assert error["request_id"] == "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"


def test_whoami(invoke: Invoke, dev: dict[str, str]) -> None:
    response = invoke("whoami")
    assert response["statusCode"] == 200
    assert body(response)["api_key"]["id"] == dev["live_key_id"]
    assert header(response, "X-RateLimit-Limit") == "6000"


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("whoami_missing_key", 401, "unauthorized"),
        ("whoami_malformed_key", 401, "unauthorized"),
        ("create_key_invalid_json", 400, "invalid_json"),
        ("create_key_validation_error", 400, "validation_error"),
        ("get_key_not_found", 404, "not_found"),
        ("list_keys_per_page_too_large", 400, "validation_error"),
        ("send_message_too_many_recipients", 400, "recipient_limit_exceeded"),
        ("send_message_forbidden_header", 400, "validation_error"),
        ("send_message_private_webhook_url", 400, "validation_error"),
        ("send_message_unknown_template", 400, "template_not_found"),
        ("get_message_not_found", 404, "not_found"),
        ("create_template_invalid_schema", 400, "validation_error"),
        ("track_click_invalid", 404, "not_found"),
        ("unsubscribe_invalid", 404, "not_found"),
        ("list_events_too_many_metadata_filters", 400, "validation_error"),
        ("create_suppression_override_not_allowlist", 400, "validation_error"),
        ("bulk_delete_unsubscribes_unconfirmed", 400, "validation_error"),
    ],
)
def test_failures_have_their_codes(invoke: Invoke, name: str, status: int, code: str) -> None:
    response = invoke(name)
    assert response["statusCode"] == status
    assert body(response)["error"]["code"] == code


def test_key_lifecycle_through_the_sample_events(invoke: Invoke) -> None:
    created = invoke("create_key")
    assert created["statusCode"] == 201
    key = body(created)
    assert (key["scope"], key["env"]) == ("send_only", "test")

    detail = body(invoke("get_key", key_id=key["id"]))
    assert detail["ip_allowlist"] == [
        {"cidr": "198.51.100.7/32", "label": "CI runner"},
        {"cidr": "2001:db8::/32", "label": "office"},
    ]
    assert detail["test_outcomes"]["send"] == {"delivered": 9.0, "bounce": 1.0}

    updated = body(invoke("update_key", key_id=key["id"]))
    assert (updated["scope"], updated["name"]) == ("read_only", "Read-only dashboard")
    assert updated["ip_allowlist"] == [{"cidr": "10.0.0.0/8", "label": "vpn"}]

    rotated = body(invoke("rotate_key", key_id=key["id"]))
    assert rotated["id"] == key["id"] and rotated["key"] != key["key"]

    assert invoke("delete_key", key_id=key["id"])["statusCode"] == 200
    assert invoke("get_key", key_id=key["id"])["statusCode"] == 404

    actions = [entry["action"] for entry in body(invoke("list_audit"))["items"][:4]]
    assert actions == ["key.deleted", "key.rotated", "key.updated", "key.created"]


def test_usage_and_list_keys(invoke: Invoke) -> None:
    usage = body(invoke("get_usage"))
    assert usage["plan"] == "professional" and usage["daily"] is None
    listed = body(invoke("list_keys"))
    assert listed["pagination"]["per_page"] == 10 and listed["items"]


def test_an_unexpected_error_is_a_500_without_a_stack_trace(invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    from postline.usage.service import UsageService

    def explode(*_: object) -> None:
        raise RuntimeError("secret internals: table xyz")

    monkeypatch.setattr(UsageService, "get", explode)
    response = invoke("get_usage")
    assert response["statusCode"] == 500
    assert body(response)["error"] == {
        "code": "internal_error",
        "message": "Something went wrong on our side; retry with backoff.",
    }
    assert "secret internals" not in response["body"] and "Traceback" not in response["body"]


def test_a_send_is_queued_and_readable(invoke: Invoke) -> None:
    accepted = invoke("send_message")
    assert accepted["statusCode"] == 202
    sent = body(accepted)
    assert (sent["status"], sent["from"], sent["headers"]) == (
        "queued",
        "Acme Billing <billing@postline.test>",
        {"X-Campaign": "nov-invoices"},
    )
    assert body(invoke("send_message")) == sent  # the same Idempotency-Key replays the first result

    message = body(invoke("get_message", message_id=sent["id"]))
    assert (message["id"], message["subject"], message["tags"]) == (sent["id"], "Your invoice", ["invoice"])


def test_a_scheduled_send_is_listed_and_can_be_cancelled(invoke: Invoke) -> None:
    scheduled = body(invoke("send_message_scheduled"))
    listed = body(invoke("list_scheduled"))["items"]
    assert scheduled["id"] in [item["id"] for item in listed]

    cancelled = invoke("cancel_message", message_id=scheduled["id"])
    assert cancelled["statusCode"] == 200
    assert body(cancelled)["status"] == "cancelled"
    assert scheduled["id"] not in [item["id"] for item in body(invoke("list_scheduled"))["items"]]
    again = invoke("cancel_message", message_id=scheduled["id"])
    assert (again["statusCode"], body(again)["error"]["code"]) == (400, "validation_error")


def test_a_batch_sends_the_valid_recipients(invoke: Invoke) -> None:
    result = body(invoke("send_batch"))
    assert (result["accepted"], result["rejected"], len(result["message_ids"])) == (2, 1, 2)
    (rejection,) = result["rejected_recipients"]
    assert (rejection["index"], rejection["to"]) == (1, "not-an-address")


def test_template_lifecycle_through_the_sample_events(invoke: Invoke) -> None:
    created = invoke("create_template")
    assert created["statusCode"] == 201
    template = body(created)
    assert (template["version"], template["active"]) == (1, True)
    assert template["id"].startswith("tpl_")

    updated = body(invoke("update_template", template_id=template["id"]))
    assert (updated["version"], updated["subject"]) == (2, "Welcome aboard, {{ name }}")
    assert body(invoke("get_template", template_id=template["id"])) == updated
    assert template["id"] in [item["id"] for item in body(invoke("list_templates"))["items"]]

    preview = body(invoke("render_template"))  # unsaved parts: the values escaped in html only
    assert (preview["subject"], preview["html"], preview["text_body"]) == (
        "Welcome, Ada <3",
        "<h1>Hi Ada &lt;3</h1><p></p>",
        "Hi Ada <3",
    )
    assert (preview["variables"], preview["missing_variables"], preview["template_id"]) == (
        ["name", "plan"],
        ["plan"],
        None,
    )

    assert invoke("delete_template", template_id=template["id"])["statusCode"] == 200
    assert invoke("get_template", template_id=template["id"])["statusCode"] == 404


def test_tracking_links_answer_without_a_key(invoke: Invoke) -> None:
    pixel = invoke("track_open")
    assert pixel["statusCode"] == 200 and pixel["isBase64Encoded"] is True
    page = invoke("unsubscribe_page")
    assert page["statusCode"] == 200 and '<form method="post"' in page["body"]


def test_list_events_answers_an_event_page(invoke: Invoke) -> None:
    page = body(invoke("list_events"))
    assert set(page) == {"items", "has_more", "next_cursor", "total_count"}
    assert (page["has_more"], page["next_cursor"]) == (False, None)


def test_an_export_is_accepted_and_readable(invoke: Invoke) -> None:
    now = datetime.now(UTC)
    window = {"since": (now - timedelta(days=1)).isoformat(), "until": (now - timedelta(minutes=1)).isoformat()}
    accepted = invoke("export_events", **window)
    assert accepted["statusCode"] == 202
    export = body(accepted)
    assert export["status"] == "pending"
    job = body(invoke("get_event_export", export_id=export["export_id"]))
    assert (job["id"], job["status"], job["download_url"]) == (export["export_id"], "pending", None)
    future = invoke("export_events_until_in_future", since=window["since"])
    assert (future["statusCode"], body(future)["error"]["code"]) == (400, "validation_error")
    assert invoke("get_event_export", export_id="not-an-export")["statusCode"] == 404


def test_domain_lifecycle_through_the_sample_events(invoke: Invoke) -> None:
    name = f"lifecycle-{uuid.uuid4().hex[:8]}.example"
    created = invoke("create_domain", domain_name=name)
    assert created["statusCode"] == 201, created["body"]
    domain = body(created)
    assert (domain["domain"], domain["status"], domain["tracking_subdomain"]) == (name, "pending", "links")
    assert domain["id"] in {d["id"] for d in body(invoke("list_domains"))["items"]}
    assert body(invoke("get_domain", domain_id=domain["id"])) == domain
    assert body(invoke("update_domain", domain_id=domain["id"]))["region"] == "eu-west-1"
    assert invoke("delete_domain", domain_id=domain["id"])["statusCode"] == 200
    assert invoke("verify_domain", domain_id=domain["id"])["statusCode"] == 404


def test_validate_answers_a_bad_address_without_the_network(invoke: Invoke) -> None:
    response = invoke("validate_address_bad_syntax")
    assert response["statusCode"] == 200, response["body"]
    result = body(response)
    assert (result["status"], result["sub_status"], result["recommendation"]) == (
        "invalid",
        "failed_syntax_check",
        "suppress",
    )
    assert result["address"] == "ada@@example.com" and result["smtp_check"] is None


def test_validate_without_an_email_is_a_validation_error(invoke: Invoke) -> None:
    response = invoke("validate_address_missing_email")
    assert response["statusCode"] == 400
    assert body(response)["error"]["code"] == "validation_error"


def test_a_live_bulk_job_is_queued_and_readable(invoke: Invoke) -> None:
    response = invoke("start_bulk_validation")
    assert response["statusCode"] == 202, response["body"]
    accepted = body(response)
    assert (accepted["status"], accepted["total_count"]) == ("queued", 2)  # Ada@Example.com is ada@example.com
    job = invoke("get_bulk_validation", job_id=accepted["job_id"])
    assert job["statusCode"] == 200, job["body"]
    assert (body(job)["status"], body(job)["processed_count"], body(job)["can_retry"]) == ("queued", 0, False)
    page = invoke("get_bulk_validation_results", job_id=accepted["job_id"])
    assert body(page) == {"items": [], "total": 2, "page": 1, "limit": 50}
    deleted = invoke("delete_bulk_validation", job_id=accepted["job_id"])
    assert deleted["statusCode"] == 200, deleted["body"]
    assert body(deleted)["status"] == "deleted"
    gone = invoke("get_bulk_validation_results", job_id=accepted["job_id"])
    assert gone["statusCode"] == 404 and body(gone)["error"]["code"] == "not_found"


def test_a_csv_bulk_job_is_pending_until_the_worker_reads_it_and_an_upload_gets_a_url(invoke: Invoke) -> None:
    response = invoke("start_bulk_validation_csv")
    assert response["statusCode"] == 202, response["body"]
    accepted = body(response)
    assert (accepted["status"], accepted["total_count"], accepted["upload_url"]) == ("pending", 0, None)
    job = body(invoke("get_bulk_validation", job_id=accepted["job_id"]))
    assert (job["status"], job["filename"], job["skipped"], job["errors"]) == ("pending", "leads.csv", 0, [])
    upload = invoke("start_bulk_validation_upload")
    assert upload["statusCode"] == 202, upload["body"]
    waiting = body(upload)
    assert waiting["status"] == "uploading" and waiting["upload_url"].startswith("http")
    assert body(invoke("get_bulk_validation", job_id=waiting["job_id"]))["status"] == "uploading"  # no file yet


def test_suppression_lifecycle_through_the_sample_events(invoke: Invoke) -> None:
    created = invoke("create_suppression")
    assert created["statusCode"] in (200, 201), created["body"]  # 200: an earlier test of this module added it
    entry = body(created)
    assert (entry["type"], entry["email"], entry["source"]) == ("bounces", "jane.doe@example.com", "manual")
    assert body(invoke("get_suppression", suppression_id=entry["id"])) == entry
    assert body(invoke("list_suppressions"))["items"] == [entry]
    assert body(invoke("bulk_add_suppressions")) == {
        "added": 1,
        "skipped": [
            {"index": 1, "email": "not an address", "reason": "invalid_syntax"},
            {"index": 2, "email": "A@example.com", "reason": "duplicate_in_batch"},
        ],
    }
    assert body(invoke("bulk_delete_suppressions")) == {"removed": 1, "not_found": 1}
    assert invoke("delete_suppression_by_address")["statusCode"] == 200
    assert invoke("get_suppression", suppression_id=entry["id"])["statusCode"] == 404
    assert invoke("delete_suppression", suppression_id=entry["id"])["statusCode"] == 404


def test_a_suppression_import_through_the_sample_events(invoke: Invoke) -> None:
    accepted = invoke("import_suppressions")
    assert accepted["statusCode"] == 202, accepted["body"]
    job = body(invoke("get_suppression_import", import_id=body(accepted)["import_id"]))
    assert (job["status"], job["filename"], job["type"], job["total_rows"]) == (
        "pending",
        "leavers.csv",
        "unsubscribes",
        None,
    )
    assert invoke("get_suppression_import", import_id="not-an-import")["statusCode"] == 404


def test_a_suppression_export_through_the_sample_events(invoke: Invoke) -> None:
    accepted = invoke("export_suppressions")
    assert accepted["statusCode"] == 202, accepted["body"]
    job = body(invoke("get_suppression_export", export_id=body(accepted)["export_id"]))
    assert (job["status"], job["download_url"], job["row_count"]) == ("pending", None, None)
    assert job["filename"].startswith("suppressions-bounces-")


def test_metrics_routes(invoke: Invoke) -> None:
    summary = invoke("metrics_summary")
    assert summary["statusCode"] == 200, summary["body"]
    found = body(summary)
    assert found["timezone"] == "Asia/Kolkata" and found["period"]["since"] == "2026-01-01T05:30:00+05:30"
    assert found["delivery"]["sent"] == 0 and found["delivery"]["delivery_rate"] is None
    assert found["comparison"]["delta"]["sent_pct_change"] is None
    series = body(invoke("metrics_timeseries"))
    assert series["resolution"] == "day" and len(series["data"]) in (30, 31) and series["groups"] == []
    breakdown = body(invoke("metrics_breakdown"))
    assert (breakdown["dimension"], breakdown["sort"], breakdown["total"], breakdown["data"]) == (
        "recipient_domain",
        "delivered",
        0,
        [],
    )
    for name in ("metrics_summary_window_too_long", "metrics_breakdown_unknown_dimension"):
        response = invoke(name)
        assert response["statusCode"] == 400 and body(response)["error"]["code"] == "validation_error", name


def test_the_egress_document_says_where_mail_and_webhooks_come_from(invoke: Invoke) -> None:
    """The in-process stack, like the embedded runtime, has no Elastic IP: no static address."""
    response = invoke("egress")
    assert response["statusCode"] == 200
    assert body(response) == {"ipv4": [], "static": False, "used_for": ["smtp_relay", "webhooks"]}


def test_a_check_answers_its_parts_and_a_sent_message_its_content(invoke: Invoke) -> None:
    checked = invoke("check_message")
    assert checked["statusCode"] == 200
    result = body(checked)
    assert [p["name"] for p in result["parts"]] == ["spamassassin", "authentication", "bulk_sender", "content"]
    assert 0 <= result["score"] <= 100 and result["verdict"] in ("good", "review", "poor")
    # A live message's copy is built again from its sealed body: nothing needs to have been delivered.
    sent = body(invoke("send_message"))
    shown = body(invoke("get_message_content", message_id=sent["id"]))
    assert (shown["id"], shown["test"], shown["source"]) == (sent["id"], False, "rebuilt")
    (copy,) = shown["recipients"]
    assert copy["recipient"] == "ada@example.com" and "Subject: Your invoice" in copy["raw"]
    assert [p["content_type"] for p in copy["parts"]] == ["text/plain", "text/html"]
