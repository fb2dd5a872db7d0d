"""Captures a real answer of every JSON route for the OpenAPI document's response examples.

    .venv/bin/python -m infra.capture_examples

Starts the embedded runtime in this process (a fresh state dir, the development account), makes
each operation's documented call over HTTP with the development account's live key, seeding what
it needs first (a template, a webhook, a domain, a list, an upload, an IP pool, ...), and writes the
answers to infra/openapi_response_examples.json, keyed by operationId and status. The answers are
made stable and readable first: ids keep their prefix and length but get a fixed body; the capture
starts at 2026-11-28T09:30:00Z (every time keeps its distance from the start, to the second;
midnights, a period's bounds, stay); the runtime's addresses read https://api.postline.example and
https://s3.amazonaws.com; secrets (API keys, webhook secrets, presigned signatures) are placeholders.
Public keys, signatures and fingerprints are real, so they change at every capture.

Run by hand when a response changes shape (tests/infra/test_openapi_examples.py fails then);
`make generate` puts each example on its response. An entry under "hand_written" was not captured
(the reason says why) and is kept as it is by a new capture.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import requests

from infra.openapi_examples import REQUEST_EXAMPLES as REQ
from infra.openapi_examples import response_examples
from postline.wiring import ip_pools as ip_pools_root

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "infra" / "openapi_response_examples.json"
TEMPLATE = ROOT / "template.yaml"
INSTANT = datetime(2026, 11, 28, 9, 30, tzinfo=UTC)  # when the capture "started", in every example
SENDER_NAME = "Acme"

_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?")
_PREFIXED_ID = re.compile(r"\b([a-z]{2,12})_([0-9A-Za-z]{8,40})\b")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_COMPACT_TIMESTAMP = re.compile(r"(?<!\d)(20\d{6})(T?)(\d{6})(?!\d)")  # 20261128T095629Z, selector pl20261128095632
_MAIL_DATE = re.compile(r"\w{3}, \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}")  # a Date: header
_SECRET_FIELDS = {"secret", "signing_secret", "password", "private_key"}
_API_KEY = re.compile(r"^(pl_(?:live|test)_)\S+$")
_PRESIGNED = {"policy": "<policy>", "x-amz-signature": "<signature>", "x-amz-security-token": "<token>"}
API_ORIGIN = "https://api.postline.example"  # the stack's API URL, where the runtime's gateway listens
S3_ORIGIN = "https://s3.amazonaws.com"  # S3 (path-style), where the emulator listens


class Stabiliser:
    """The same volatile value always becomes the same stable one, within one capture."""

    def __init__(self, origins: dict[str, str], started: datetime) -> None:
        self._seen: dict[str, str] = {}
        self._started = started  # the runtime's clock when the capture began: it reads INSTANT
        self._origins = origins  # the runtime's addresses (their ports change at every start) -> stable ones

    def _stable(self, value: str, length: int, alphabet: str) -> str:
        if value not in self._seen:
            digest = hashlib.sha256(f"{len(self._seen)}:{length}".encode()).digest()
            number = int.from_bytes(digest * 4, "big")
            chars = []
            for _ in range(length):
                number, index = divmod(number, len(alphabet))
                chars.append(alphabet[index])
            self._seen[value] = "".join(chars)
        return self._seen[value]

    def _prefixed(self, match: re.Match[str]) -> str:
        prefix, body = match.group(1), match.group(2)
        if not any(c.isdigit() for c in body):  # a word, not an id (send_only, full_access, ...)
            return match.group(0)
        alphabet = "0123456789abcdef" if re.fullmatch(r"[0-9a-f]+", body) else "0123456789abcdefghjkmnpqrstvwxyz"
        if any(c.isupper() for c in body):
            alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
        return f"{prefix}_{self._stable(body, len(body), alphabet)}"

    def _uuid(self, match: re.Match[str]) -> str:
        raw = self._stable(match.group(0), 32, "0123456789abcdef")
        return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-a{raw[17:20]}-{raw[20:]}"

    def moment(self, when: datetime) -> datetime:
        """The same distance from INSTANT as from the capture's start, to the second; a calendar
        boundary (midnight: a day, a month, a period) stays as it is."""
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        if (when.hour, when.minute, when.second, when.microsecond) == (0, 0, 0, 0):
            return when
        return (INSTANT + timedelta(seconds=round((when - self._started).total_seconds()))).astimezone(when.tzinfo)

    def _timestamp(self, match: re.Match[str]) -> str:
        stable = self.moment(datetime.fromisoformat(match.group(0))).replace(tzinfo=None).isoformat()
        suffix = match.group(1) or ""
        return stable + ("+00:00" if suffix == "+00:00" else "Z" if suffix else "")

    def _compact(self, match: re.Match[str]) -> str:
        moment = self.moment(datetime.strptime(match.group(1) + match.group(3), "%Y%m%d%H%M%S").replace(tzinfo=UTC))
        return moment.strftime("%Y%m%d") + match.group(2) + moment.strftime("%H%M%S")

    def text(self, value: str) -> str:
        for local, stable in self._origins.items():
            value = value.replace(local, stable)
        value = _COMPACT_TIMESTAMP.sub(self._compact, value)
        value = _MAIL_DATE.sub(lambda m: format_datetime(self.moment(parsedate_to_datetime(m.group(0)))), value)
        value = _TIMESTAMP.sub(self._timestamp, value)
        value = _UUID.sub(self._uuid, value)
        return _PREFIXED_ID.sub(self._prefixed, value)

    def value(self, value: Any, field: str = "") -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, field) for v in value]
        if not isinstance(value, str):
            return value
        if field in _SECRET_FIELDS and value:
            head = re.match(r"[a-z]+_", value)
            return f"{head.group(0) if head else ''}<{field}: shown once>"
        if field != "prefix" and (key := _API_KEY.match(value)):
            return f"{key.group(1)}<key: shown once>"
        if field in _PRESIGNED:
            return _PRESIGNED[field]
        if "X-Amz-Signature=" in value:  # a presigned URL: its query changes at every call
            return self.text(value.split("?", 1)[0]) + "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=..."
        return self.text(value)


class Capture:
    """Calls the API and keeps each 2xx JSON answer under its operation."""

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {key}"
        self.found: dict[str, dict[str, Any]] = {}
        self.failed: dict[str, str] = {}

    def call(self, operation: str, method: str, path: str, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", 60)
        response = self.session.request(method, self.base_url + path, **kwargs)
        if 200 <= response.status_code < 300 and response.headers.get("Content-Type", "").startswith(
            "application/json"
        ):
            body = response.json()
            self.found.setdefault(operation, {}).setdefault(str(response.status_code), body)  # the first answer
            return body
        self.failed.setdefault(operation, f"{method} {path}: {response.status_code} {response.text[:300]}")
        return None


def _poll(fetch: Callable[[], Any], done: Callable[[Any], bool], seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = fetch()
        if value is None or done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.5)


HOOKS_ORIGIN = "https://hooks.acme.example"  # the webhook receiver, which listens on loopback here


class _Receiver(BaseHTTPRequestHandler):
    """A webhook endpoint that takes every event: 200, empty."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


def capture(runtime: Any, hooks: str) -> Capture:
    """Every operation's call, in the order a user would make them, seeding what each needs."""
    dev = runtime.dev
    api = Capture(runtime.base_url, dev["keys"]["live"])
    domain = dev["sending_domain"]["domain"]
    sender = f"{SENDER_NAME} <hello@{domain}>"

    def drain() -> None:
        runtime.drain(30.0)

    api.call("WhoAmI", "GET", "/v3/whoami")
    api.call("GetUsage", "GET", "/v3/usage")
    api.call("SigningKeys", "GET", "/.well-known/svc/keys")
    api.call("Egress", "GET", "/.well-known/svc/egress")

    # Keys
    key = api.call("CreateKey", "POST", "/v3/keys", json=REQ["KeyCreate"])
    api.call("ListKeys", "GET", "/v3/keys", params={"per_page": 2})
    if key:
        api.call("GetKey", "GET", f"/v3/keys/{key['id']}")
        api.call("UpdateKey", "PATCH", f"/v3/keys/{key['id']}", json=REQ["KeyUpdate"])
        api.call("RotateKey", "POST", f"/v3/keys/{key['id']}/rotate")
        api.call("DeleteKey", "DELETE", f"/v3/keys/{key['id']}")

    # Templates
    template = api.call("CreateTemplate", "POST", "/v3/templates", json=REQ["TemplateCreate"])
    api.call("ListTemplates", "GET", "/v3/templates", params={"per_page": 2})
    if template:
        api.call("GetTemplate", "GET", f"/v3/templates/{template['id']}")
        api.call("UpdateTemplate", "PATCH", f"/v3/templates/{template['id']}", json=REQ["TemplateUpdate"])
        preview = {**REQ["TemplatePreview"], "template_id": template["id"]}
        api.call("RenderTemplate", "POST", "/v3/templates/render", json=preview)

    receiver = {**REQ["WebhookCreate"], "url": f"{hooks}/postline"}
    hook = api.call("CreateWebhook", "POST", "/v3/webhooks", json=receiver)  # before the sends

    # Messages
    message = {**REQ["SendRequest"], "from": sender}
    sent = api.call("SendMessage", "POST", "/v3/messages", json=message)
    api.call("SendBatch", "POST", "/v3/messages.batch", json={**REQ["BatchSendRequest"], "from": sender})
    api.call("CheckMessage", "POST", "/v3/messages/check", json=message)
    later = {**message, "send_at": (runtime.clock.now() + timedelta(days=2)).isoformat()}
    scheduled = api.call("SendMessage", "POST", "/v3/messages", json=later)
    api.call("ListScheduled", "GET", "/v3/messages/scheduled", params={"per_page": 1})
    if scheduled:
        api.call("CancelMessage", "DELETE", f"/v3/messages/{scheduled['id']}")
    drain()
    if sent:
        api.call("GetMessage", "GET", f"/v3/messages/{sent['id']}")
        api.call("GetMessageContent", "GET", f"/v3/messages/{sent['id']}/content")

    # Events and metrics
    if sent:  # one message's story, so that the example does not depend on which work finished first
        api.call("ListEvents", "GET", "/v3/events", params={"message_id": sent["id"], "limit": 3})
    now = runtime.clock.now() - timedelta(seconds=1)
    window = {"since": (now - timedelta(days=1)).isoformat(), "until": now.isoformat()}
    export = api.call("ExportEvents", "POST", "/v3/events/export", json={**window, "format": "csv"})
    drain()
    if export:
        export_id = export.get("export_id") or export.get("id")
        _poll(
            lambda: api.call("GetEventExport", "GET", f"/v3/events/export/{export_id}"),
            lambda job: job.get("status") not in {"pending", "running", "queued"},
        )
    api.call("MetricsSummary", "GET", "/v3/metrics/summary")
    yesterday = (now - timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    days = {"since": yesterday.isoformat(), "until": now.isoformat(), "resolution": "day"}
    api.call("MetricsTimeseries", "GET", "/v3/metrics/timeseries", params=days)
    api.call("MetricsBreakdown", "GET", "/v3/metrics/breakdown", params={"dimension": "tag", "limit": 3})

    # Webhooks
    api.call("ListWebhooks", "GET", "/v3/webhooks", params={"per_page": 1})
    if hook:
        api.call("GetWebhook", "GET", f"/v3/webhooks/{hook['id']}")
        api.call("UpdateWebhook", "PUT", f"/v3/webhooks/{hook['id']}", json={"description": "delivery status"})
        api.call("RotateWebhookSecret", "POST", f"/v3/webhooks/{hook['id']}/secret/rotate")
        api.call("SendWebhookSample", "POST", f"/v3/webhooks/{hook['id']}/test", json={"event": "bounced"})
        drain()
        deliveries = api.call(
            "ListWebhookDeliveries", "GET", f"/v3/webhooks/{hook['id']}/deliveries", params={"limit": 2}
        )
        # a sample cannot be resent: an event's delivery can
        ids = [d["id"] for d in (deliveries or {}).get("deliveries", []) if not d["event_id"].startswith("evt_sample")]
        if ids:
            job = api.call(
                "ResendWebhookDeliveries", "POST", "/v3/webhooks/deliveries/resend", json={"delivery_ids": ids[:1]}
            )
            drain()
            if job:
                api.call("GetWebhookResend", "GET", f"/v3/webhooks/deliveries/resend/{job['id']}")
        api.call("DeleteWebhook", "DELETE", f"/v3/webhooks/{hook['id']}")

    # Domains
    created = api.call("CreateDomain", "POST", "/v3/domains", json=REQ["DomainCreate"])
    api.call("ListDomains", "GET", "/v3/domains")
    if created:
        api.call("GetDomain", "GET", f"/v3/domains/{created['id']}")
        api.call("UpdateDomain", "PATCH", f"/v3/domains/{created['id']}", json={"tracking_subdomain": "click"})
        api.call("VerifyDomain", "POST", f"/v3/domains/{created['id']}/verify")
        api.call("RotateDomainDkim", "POST", f"/v3/domains/{created['id']}/dkim/rotate")
        api.call("DeleteDomain", "DELETE", f"/v3/domains/{created['id']}")

    # Verification
    api.call("ValidateAddress", "POST", "/v3/validate", json=REQ["ValidateRequest"])
    api.call("EvaluateList", "POST", "/v3/validate/evaluate", json=REQ["EvaluateRequest"])
    bulk = api.call("StartBulkValidation", "POST", "/v3/validate/bulk", json=REQ["BulkCreate"])
    drain()
    if bulk:
        job_id = bulk.get("job_id") or bulk.get("id")
        _poll(
            lambda: api.call("GetBulkValidation", "GET", f"/v3/validate/bulk/{job_id}"),
            lambda job: job.get("status") not in {"pending", "running", "queued"},
        )
        api.call("GetBulkValidationResults", "GET", f"/v3/validate/bulk/{job_id}/results")
        file = api.call("GetBulkValidationFile", "GET", f"/v3/validate/bulk/{job_id}/file")
        if file:
            proof = {k: file[k] for k in ("fingerprint", "signature") if k in file}
            api.call("VerifyProof", "POST", "/v3/validate/proofs/verify", json=proof)
        api.call("DeleteBulkValidation", "DELETE", f"/v3/validate/bulk/{job_id}")

    # Suppressions
    entry = api.call("CreateSuppression", "POST", "/v3/suppressions", json=REQ["SuppressionCreate"])
    api.call("CreateSuppression", "POST", "/v3/suppressions", json=REQ["SuppressionCreate"])  # again: 200
    api.call("BulkAddSuppressions", "POST", "/v3/suppressions/bulk", json=REQ["BulkSuppressionRequest"])
    api.call("ListSuppressions", "GET", "/v3/suppressions", params={"per_page": 2})
    api.call(
        "BulkDeleteSuppressions",
        "DELETE",
        "/v3/suppressions/bulk",
        json={"type": "bounces", "emails": ["old@example.com"]},
    )
    imported = api.call("ImportSuppressions", "POST", "/v3/suppressions/import", json=REQ["SuppressionImportRequest"])
    exported = api.call("ExportSuppressions", "POST", "/v3/suppressions/export", json={"type": "bounces"})
    drain()
    if imported:
        import_id = imported.get("import_id") or imported.get("id")
        api.call("GetSuppressionImport", "GET", f"/v3/suppressions/imports/{import_id}")
    if exported:
        export_id = exported.get("export_id") or exported.get("id")
        api.call("GetSuppressionExport", "GET", f"/v3/suppressions/exports/{export_id}")
    api.call("DeleteSuppressionByAddress", "DELETE", "/v3/suppressions/bounces/gone%40example.com")
    if entry:
        api.call("GetSuppression", "GET", f"/v3/suppressions/{entry['id']}")
        api.call("DeleteSuppression", "DELETE", f"/v3/suppressions/{entry['id']}", json=REQ["SuppressionRemoval"])

    # Lists
    mailing = api.call("CreateList", "POST", "/v3/lists", json={**REQ["ListCreate"], "address": f"news@{domain}"})
    api.call("ListLists", "GET", "/v3/lists", params={"per_page": 1})
    if mailing:
        base = f"/v3/lists/{mailing['id']}"
        api.call("GetList", "GET", base)
        api.call("UpdateList", "PATCH", base, json=REQ["ListUpdate"])
        api.call("AddListMember", "POST", f"{base}/members", json=REQ["MemberCreate"])
        api.call("BulkUpsertListMembers", "POST", f"{base}/members/bulk", json=REQ["BulkMembersRequest"])
        api.call("ListListMembers", "GET", f"{base}/members", params={"per_page": 2})
        api.call("GetListMember", "GET", f"{base}/members/ada%40example.com")
        api.call("UpdateListMember", "PATCH", f"{base}/members/grace%40example.com", json=REQ["MemberUpdate"])
        to_list = {**later, "to": [mailing["address"]]}
        to_list.pop("vars", None)
        list_send = api.call("SendMessage", "POST", "/v3/messages", json=to_list)
        if list_send:
            send_id = list_send.get("list_send_id")
            api.call("GetListSend", "GET", f"{base}/sends/{send_id}")
            api.call("CancelListSend", "DELETE", f"{base}/sends/{send_id}")
        api.call("DeleteListMember", "DELETE", f"{base}/members/ada%40example.com")
        api.call("DeleteList", "DELETE", base)

    # Subaccounts
    sub = api.call("CreateSubaccount", "POST", "/v3/subaccounts", json=REQ["SubaccountCreate"])
    api.call("ListSubaccounts", "GET", "/v3/subaccounts", params={"per_page": 1})
    if sub:
        base = f"/v3/subaccounts/{sub['id']}"
        api.call("GetSubaccount", "GET", base)
        api.call("UpdateSubaccount", "PATCH", base, json=REQ["SubaccountUpdate"])
        api.call("SuspendSubaccount", "POST", f"{base}/suspend")
        api.call("ReactivateSubaccount", "POST", f"{base}/reactivate")
        api.call("DeleteSubaccount", "DELETE", base)

    # Uploads
    content = base64.b64encode(b"%PDF-1.4\n% price list\n").decode()
    upload = api.call("CreateUpload", "POST", "/v3/uploads", json={"filename": "price-list.pdf", "content": content})
    api.call("ListUploads", "GET", "/v3/uploads")
    if upload:
        base = f"/v3/uploads/{upload['id']}"
        api.call("GetUpload", "GET", base)
        api.call("UpdateUpload", "PATCH", base, json=REQ["UploadUpdate"])
        api.call("GetUploadDownloadLink", "GET", f"{base}/download-link")
    large = api.call("CreateUpload", "POST", "/v3/uploads", json={"filename": "deck.pdf", "size_bytes": 2048})
    if large and large.get("upload"):
        post = large["upload"]
        requests.post(post["url"], data=post["fields"], files={"file": ("deck.pdf", b"%PDF" + b"0" * 2044)}, timeout=60)
        api.call("CompleteUpload", "POST", f"/v3/uploads/{large['id']}/complete")
    if upload:
        api.call("DeleteUpload", "DELETE", f"/v3/uploads/{upload['id']}")

    # Data removals
    removal = api.call("CreateDataRemoval", "POST", "/v3/data-removals", json={"email": "grace@example.com"})
    drain()
    if removal:
        removal_id = removal.get("removal_id") or removal.get("id")
        api.call("GetDataRemoval", "GET", f"/v3/data-removals/{removal_id}")

    # IP pools
    pool = api.call("CreateIpPool", "POST", "/v3/ip-pools", json=REQ["IpPoolCreate"])
    api.call("ListIpPools", "GET", "/v3/ip-pools", params={"per_page": 2})
    if pool:
        base = f"/v3/ip-pools/{pool['id']}"
        api.call("GetIpPool", "GET", base)
        api.call("UpdateIpPool", "PATCH", base, json=REQ["IpPoolUpdate"])
        ip_pools_root.ip_pool_admin().allocate("192.0.2.17", account_id=dev["account_id"], pool_id=pool["id"])
        other = api.call("CreateIpPool", "POST", "/v3/ip-pools", json={"name": "marketing", "type": "dedicated"})
        if other:
            api.call("AssignIp", "POST", f"/v3/ip-pools/{other['id']}/ips", json={"ip": "192.0.2.17"})
        api.call("ListIps", "GET", "/v3/ips")
        api.call("DeleteIpPool", "DELETE", base)
    if template:
        api.call("DeleteTemplate", "DELETE", f"/v3/templates/{template['id']}")

    api.call("ListAudit", "GET", "/v3/audit", params={"per_page": 2})
    return api


def main() -> int:
    from devtools.local.runtime import Runtime

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hooks = f"http://127.0.0.1:{receiver.server_address[1]}"
    try:
        with tempfile.TemporaryDirectory() as state, Runtime(TEMPLATE, Path(state)) as runtime:
            started = runtime.clock.now()
            captured = capture(runtime, hooks)
            origins = {runtime.base_url.rstrip("/"): API_ORIGIN, runtime.endpoint_url.rstrip("/"): S3_ORIGIN}
    finally:
        receiver.shutdown()
    origins[hooks] = HOOKS_ORIGIN
    previous = json.loads(EXAMPLES.read_text()) if EXAMPLES.exists() else {}
    hand_written: dict[str, Any] = previous.get("hand_written", {})
    stabiliser = Stabiliser(origins, started)
    responses = {op: stabiliser.value(by_status) for op, by_status in sorted(captured.found.items())}
    document = {
        "about": "Real answers of the embedded runtime, captured by `python -m infra.capture_examples` "
        "(ids, times and secrets made stable). hand_written: {operationId: {reason, examples: {status: body}}} "
        "for what could not be captured, kept by a new capture.",
        "responses": responses,
        "hand_written": {op: entry for op, entry in sorted(hand_written.items()) if op not in responses},
    }
    EXAMPLES.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {EXAMPLES.relative_to(ROOT)}: {len(responses)} operations captured")
    for operation, reason in sorted(captured.failed.items()):
        print(
            f"{'not captured' if operation not in responses else 'a call failed'}: {operation}: {reason}",
            file=sys.stderr,
        )
    written = response_examples()
    missing = [f"{op} {status}" for op, status in json_answers() if status not in written.get(op, {})]
    for answer in missing:
        print(f"no example: {answer}", file=sys.stderr)
    return 1 if missing else 0


def json_answers() -> list[tuple[str, str]]:
    """(operationId, status) of every JSON success response infra/openapi.json documents."""
    document = json.loads((ROOT / "infra" / "openapi.json").read_text())
    return [
        (op["operationId"], status)
        for path_item in document["paths"].values()
        for op in path_item.values()
        for status, response in op["responses"].items()
        if status.startswith("2") and "application/json" in response.get("content", {})
    ]


if __name__ == "__main__":
    raise SystemExit(main())
