"""The upload routes through their Lambda handlers, from events/*.json: a body upload's lifecycle, a
presigned one POSTed to moto's S3 and completed, the hosted link (a person's GET counted, a HEAD
recorded apart), the short-lived download link, and the refusals."""

from __future__ import annotations

from datetime import timedelta

import requests

from postline import wiring
from postline.uploads.domain import download_token
from postline.wiring import tracking, uploads
from tests.handlers.conftest import Invoke, body, header


def _later(hours: int = 24) -> str:
    return (wiring.clock().now() + timedelta(hours=hours)).isoformat()


def test_a_body_uploads_lifecycle_through_the_sample_events(invoke: Invoke, dev: dict[str, str]) -> None:
    created = invoke("create_upload")
    assert created["statusCode"] == 201, created["body"]
    upload = body(created)
    assert upload["id"].startswith("up_") and upload["upload"] is None
    assert (upload["filename"], upload["content_type"], upload["size_bytes"], upload["status"]) == (
        "hello.txt", "text/plain", 12, "ready")  # fmt: skip
    assert upload["url"] is None  # the account's domain has no branded tracking host

    listed = body(invoke("list_uploads"))
    assert upload["id"] in [item["id"] for item in listed["items"]]
    assert listed["quota_bytes"] == 100_000_000 and listed["used_bytes"] >= 12

    link = body(invoke("get_upload_download_link", upload=upload["id"]))
    assert requests.get(link["url"], timeout=30).content == b"hello, world"  # moto's S3, in-process

    updated = body(invoke("update_upload", upload=upload["id"], expires_at=_later()))
    assert updated["filename"] == "renamed.txt" and updated["expires_at"] is not None
    assert body(invoke("get_upload", upload=upload["id"])) == updated

    # The hosted link's token, as the link on a branded tracking host carries it.
    token = download_token(dev["account_id"], upload["id"], tracking.tracking_secret()())
    followed = invoke("download_upload", token=token)
    assert followed["statusCode"] == 302, followed["body"]
    assert header(followed, "X-Content-Type-Options") == "nosniff"
    assert "attachment" in requests.get(header(followed, "Location"), timeout=30).headers["Content-Disposition"]
    assert invoke("probe_upload", token=token)["statusCode"] == 302
    stored = uploads.upload_store().get_upload(dev["account_id"], upload["id"])
    assert stored is not None and (stored.download_count, stored.scanner_count) == (1, 1)
    assert body(invoke("get_upload", upload=upload["id"]))["download_count"] == 1

    assert invoke("delete_upload", upload=upload["id"])["statusCode"] == 200
    for name in ("get_upload", "get_upload_download_link", "delete_upload"):
        gone = invoke(name, upload=upload["id"], expires_at=_later())
        assert (gone["statusCode"], body(gone)["error"]["code"]) == (404, "not_found"), name
    assert invoke("download_upload", token=token)["statusCode"] == 404


def test_a_presigned_upload_posted_to_s3_then_completed(invoke: Invoke) -> None:
    created = invoke("create_upload_presigned", expires_at=_later())
    assert created["statusCode"] == 201, created["body"]
    upload = body(created)
    assert upload["status"] == "pending" and upload["size_bytes"] == 52428800
    early = invoke("complete_upload", upload=upload["id"])
    assert (early["statusCode"], body(early)["error"]["code"]) == (409, "conflict")
    post = upload["upload"]
    sent = requests.post(post["url"], data=post["fields"], files={"file": ("big.zip", b"PK\x03\x04" + b"\0" * 60)},
                         timeout=30)  # fmt: skip
    assert sent.status_code in (200, 204), sent.text
    done = invoke("complete_upload", upload=upload["id"])
    assert done["statusCode"] == 200, done["body"]
    assert (body(done)["status"], body(done)["size_bytes"], body(done)["content_type"]) == (
        "ready", 64, "application/zip")  # fmt: skip
    assert invoke("delete_upload", upload=upload["id"])["statusCode"] == 200


def test_refusals_have_their_codes(invoke: Invoke) -> None:
    for name, placeholders, status, code in [
        ("create_upload_no_size", {}, 400, "validation_error"),
        ("create_upload_presigned", {"expires_at": "2000-01-01T00:00:00Z"}, 400, "validation_error"),
        ("get_upload", {"upload": "up_nothing"}, 404, "not_found"),
        ("download_upload", {"token": "acct_x.up_x.AAAAAAAAAAAAAAAAAAAAAA"}, 404, "not_found"),
    ]:
        response = invoke(name, **placeholders)
        assert (response["statusCode"], body(response)["error"]["code"]) == (status, code), name
