"""Hosted uploads on the embedded runtime, over HTTP: the Free plan's 403; a small file in the body and
a large one through a real presigned POST to the emulator's S3, settled with what S3 holds; the quota
under concurrent creates; the hosted link on the account's branded tracking host (a person's download
counted, HEAD and scanners recorded apart), also reached through a message's wrapped link; the
short-lived download link; the operator's storage add-on; expiry (410) and the sweep deleting the file."""

from __future__ import annotations

import base64
import re
import threading
from datetime import UTC, timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from postline.accounts.domain import Plan
from postline.shared.scanners import TOO_SOON
from postline.wiring import uploads as uploads_root
from tests.e2e.sending_support import (
    accepted,
    body_of,
    mail_for,
    message,
    put_verified_domain,
    recipient,
    settle,
)
from tests.e2e.support import Api, assert_error, make_account, run_cli

pytestmark = pytest.mark.e2e

BROWSER = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
)
HTML_FILE = b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>"


def _branded(runtime: Any, plan: Plan = Plan.PROFESSIONAL) -> tuple[Api, str, str]:
    """A fresh account with a verified domain whose tracking CNAME a check found: (api, domain, host)."""
    account = make_account(plan=plan)
    domain = put_verified_domain(account.id, tracked=True)
    host = f"t.{domain}"
    return Api(runtime.base_url, account.live_key), domain, host


def _on_runtime(runtime: Any, url: str) -> str:
    """A link on the branded host, as its CNAME delivers it: to the runtime's API."""
    parts = urlsplit(url)
    return f"{runtime.base_url}{parts.path}" + (f"?{parts.query}" if parts.query else "")


def _created(response: Any) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_free_plan_has_no_uploads(runtime_api: Api) -> None:
    account = make_account(plan=Plan.FREE)
    refused = runtime_api.with_key(account.live_key).post(
        "/v3/uploads", json={"filename": "a.txt", "content": base64.b64encode(b"hi").decode()}
    )
    assert_error(refused, 403, "uploads_not_in_plan")


def test_a_small_file_its_hosted_link_and_the_download_link(runtime: Any) -> None:
    api, _, host = _branded(runtime)
    created = _created(
        api.post("/v3/uploads", json={"filename": 'inv"oice.png', "content": base64.b64encode(HTML_FILE).decode()})
    )
    assert (created["status"], created["content_type"], created["size_bytes"]) == ("ready", "text/html", len(HTML_FILE))
    assert created["filename"] == "inv_oice.png" and created["upload"] is None
    assert created["url"].startswith(f"https://{host}/v3/track/download/")
    assert set(created) == {"id", "filename", "content_type", "size_bytes", "url", "download_count", "expires_at",
                            "created_at", "status", "upload"}  # fmt: skip

    link = _on_runtime(runtime, created["url"])
    followed = requests.get(link, headers={"User-Agent": BROWSER}, allow_redirects=False, timeout=30)
    assert followed.status_code == 302 and followed.headers["X-Content-Type-Options"] == "nosniff"
    fetched = requests.get(followed.headers["Location"], timeout=30)
    assert fetched.content == HTML_FILE
    # Never a page: an attachment, and HTML is served as plain bytes.
    assert fetched.headers["Content-Disposition"].startswith('attachment; filename="inv_oice.png"')
    assert fetched.headers["Content-Type"] == "application/octet-stream"

    # Scanners: a HEAD, a gateway's user agent, a prefetch. Redirected, recorded apart, not counted.
    assert requests.head(link, headers={"User-Agent": BROWSER}, timeout=30).status_code == 302
    for headers in ({"User-Agent": "Mozilla/5.0 (compatible; Mimecast Link Scanner)"},
                    {"User-Agent": BROWSER, "Sec-Purpose": "prefetch"}):  # fmt: skip
        assert requests.get(link, headers=headers, allow_redirects=False, timeout=30).status_code == 302
    # The account's own short-lived link counts nothing either.
    own = api.get(f"/v3/uploads/{created['id']}/download-link").json()
    assert requests.get(own["url"], timeout=30).content == HTML_FILE and own["expires_at"]
    got = api.get(f"/v3/uploads/{created['id']}").json()
    assert got["download_count"] == 1
    stored = uploads_root.upload_store().get_upload(got["url"].rsplit("/", 1)[1].split(".")[0], created["id"])
    assert stored is not None and stored.scanner_count == 3
    listed = api.get("/v3/uploads").json()
    assert listed == {"items": [got], "used_bytes": len(HTML_FILE), "quota_bytes": 100_000_000}

    assert api.delete(f"/v3/uploads/{created['id']}").status_code == 200
    assert_error(api.get(f"/v3/uploads/{created['id']}"), 404, "not_found")
    assert_error(requests.get(link, headers={"User-Agent": BROWSER}, timeout=30), 404, "not_found")
    assert api.get("/v3/uploads").json()["used_bytes"] == 0


def test_a_presigned_upload_to_the_emulators_s3_settled_with_the_size_s3_holds(runtime: Any) -> None:
    api, _, _ = _branded(runtime)
    created = _created(api.post("/v3/uploads", json={"filename": "deck.pdf", "size_bytes": 40_000_000}))
    assert created["status"] == "pending" and created["url"] is None
    post = created["upload"]
    assert post["method"] == "POST" and post["max_bytes"] == 40_000_000
    assert api.get("/v3/uploads").json()["used_bytes"] == 0
    assert_error(api.post(f"/v3/uploads/{created['id']}/complete"), 409, "conflict")
    pdf = b"%PDF-1.7\n" + b"0" * 2_000_000
    sent = requests.post(post["url"], data=post["fields"], files={"file": ("deck.pdf", pdf)}, timeout=60)
    assert sent.status_code in (200, 204), sent.text
    done = api.post(f"/v3/uploads/{created['id']}/complete")
    assert done.status_code == 200, done.text
    assert (done.json()["status"], done.json()["size_bytes"], done.json()["content_type"]) == (
        "ready", len(pdf), "application/pdf")  # fmt: skip
    assert done.json()["url"] is not None
    # The 40 MB reservation shrank to what arrived: the rest of the 100 MB fits beside it, not a byte more.
    room = 100_000_000 - len(pdf)
    assert _created(api.post("/v3/uploads", json={"filename": "x", "size_bytes": room}))["status"] == "pending"
    assert_error(api.post("/v3/uploads", json={"filename": "y", "size_bytes": 1}), 403, "upload_quota_exceeded")


def test_concurrent_creates_never_reserve_more_than_the_quota(runtime: Any) -> None:
    api, _, _ = _branded(runtime)
    statuses: list[int] = []

    def create() -> None:
        statuses.append(api.post("/v3/uploads", json={"filename": "part.bin", "size_bytes": 30_000_000}).status_code)

    threads = [threading.Thread(target=create) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201, 201, 201, 403, 403, 403]  # 3 x 30 MB fit in 100 MB


def test_the_operators_storage_add_on_raises_the_quota(runtime: Any) -> None:
    api, _, _ = _branded(runtime)
    account_id = api.get("/v3/whoami").json()["account"]["id"]
    run_cli(runtime, "account", "set-storage-addon", account_id, "10gb")
    assert api.get("/v3/uploads").json()["quota_bytes"] == 10_000_000_000
    assert _created(api.post("/v3/uploads", json={"filename": "big.iso", "size_bytes": 5_000_000_000}))


def test_a_link_to_an_upload_in_a_message_is_wrapped_and_its_click_leads_to_a_counted_download(runtime: Any) -> None:
    api, domain, host = _branded(runtime)
    menu = {"filename": "menu.pdf", "content": base64.b64encode(b"%PDF-1.4 menu").decode()}
    created = _created(api.post("/v3/uploads", json=menu))
    html = f'<html><body><a href="{created["url"]}">Our menu</a></body></html>'
    sent = accepted(api.post("/v3/messages", json=message(f"shop@{domain}", recipient("diner"), html=html)))
    settle(runtime, sent["id"])
    (copy,) = mail_for(runtime, sent["id"])
    (click,) = re.findall(r'href="([^"]+)"', body_of(copy, "html") or "")
    assert click.startswith(f"https://{host}/v3/track/click/")  # wrapped like any link
    to_hosted = requests.get(_on_runtime(runtime, click), headers={"User-Agent": BROWSER}, allow_redirects=False,
                             timeout=30)  # fmt: skip
    assert to_hosted.status_code == 302 and to_hosted.headers["Location"].startswith(created["url"] + "?delivered=")
    hosted = _on_runtime(runtime, to_hosted.headers["Location"])
    # Within seconds of delivery: a gateway's prefetch, the click and the download redirected but
    # neither counted (one rule set, shared/scanners.py).
    assert requests.get(hosted, headers={"User-Agent": BROWSER}, allow_redirects=False, timeout=30).status_code == 302
    assert api.get(f"/v3/uploads/{created['id']}").json()["download_count"] == 0
    assert api.get(f"/v3/messages/{sent['id']}").json()["clicked_at"] is None
    runtime.advance(TOO_SOON.total_seconds())  # the reader, a little later
    again = requests.get(_on_runtime(runtime, click), headers={"User-Agent": BROWSER}, allow_redirects=False,
                         timeout=30)  # fmt: skip
    assert again.headers["Location"] == to_hosted.headers["Location"]
    to_s3 = requests.get(hosted, headers={"User-Agent": BROWSER}, allow_redirects=False, timeout=30)
    assert requests.get(to_s3.headers["Location"], timeout=30).content == b"%PDF-1.4 menu"
    assert api.get(f"/v3/uploads/{created['id']}").json()["download_count"] == 1
    assert api.get(f"/v3/messages/{sent['id']}").json()["clicked_at"] is not None


def test_after_expires_at_the_api_and_the_link_answer_410_and_the_sweep_deletes_the_file(runtime: Any) -> None:
    api, _, _ = _branded(runtime)
    created = _created(
        api.post("/v3/uploads", json={"filename": "a.txt", "content": base64.b64encode(b"soon").decode()})
    )
    soon = runtime.clock.now().astimezone(UTC) + timedelta(seconds=2)
    patched = api.patch(f"/v3/uploads/{created['id']}", json={"expires_at": soon.isoformat()})
    assert patched.status_code == 200, patched.text
    account_id = api.get("/v3/whoami").json()["account"]["id"]
    upload = uploads_root.upload_store().get_upload(account_id, created["id"])
    assert upload is not None and uploads_root.upload_files().size(upload) == 4
    assert api.get("/v3/uploads").json()["used_bytes"] == 4
    runtime.advance(301)  # the sweep's schedule (every 5 minutes) fires
    runtime.drain(60)
    assert uploads_root.upload_files().size(upload) is None  # deleted by the sweep, with no request
    assert_error(api.get(f"/v3/uploads/{created['id']}"), 410, "gone")
    assert_error(api.get(f"/v3/uploads/{created['id']}/download-link"), 410, "gone")
    link = _on_runtime(runtime, created["url"])
    assert_error(requests.get(link, headers={"User-Agent": BROWSER}, timeout=30), 410, "gone")
    assert api.get("/v3/uploads").json() == {"items": [], "used_bytes": 0, "quota_bytes": 100_000_000}
