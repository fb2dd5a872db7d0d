"""What infra/openapi.json says beyond the code: an example of every JSON request body, by schema
name, an example of every JSON success response, by operationId and status, and a line on each tag
(the API reference's sections).

`make generate` puts each on its body or response (`example`), where the API reference and the
SDKs' docs show it; Spectral (`make lint`) fails on a request body or a JSON 2xx response without
one, and tests/infra/test_openapi_examples.py holds each to its model or schema, so an example
cannot be wrong. The response examples are real answers of the embedded runtime, captured into
infra/openapi_response_examples.json by `python -m infra.capture_examples`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESPONSE_EXAMPLES_FILE = Path(__file__).resolve().parent / "openapi_response_examples.json"


def response_examples() -> dict[str, dict[str, Any]]:
    """{operationId: {status: example}}: the captured answers, then the hand-written ones."""
    if not RESPONSE_EXAMPLES_FILE.exists():
        return {}
    document = json.loads(RESPONSE_EXAMPLES_FILE.read_text())
    examples: dict[str, dict[str, Any]] = {op: dict(by_status) for op, by_status in document["responses"].items()}
    for operation, entry in document.get("hand_written", {}).items():
        examples.setdefault(operation, {}).update(entry["examples"])
    return examples


_MESSAGE: dict[str, Any] = {
    "from": "Acme <hello@acme.example>",
    "subject": "Your order {{order_id}} has shipped",
    "html": "<p>Hi {{name}}, your order is on its way.</p>",
    "text": "Hi {{name}}, your order is on its way.",
    "tags": ["shipping"],
    "metadata": {"order_id": "A-1042"},
}

REQUEST_EXAMPLES: dict[str, dict[str, Any]] = {
    "SendRequest": {**_MESSAGE, "to": ["ada@example.com"], "vars": {"name": "Ada", "order_id": "A-1042"}},
    "BatchSendRequest": {
        **_MESSAGE,
        "recipients": [
            {"to": "ada@example.com", "vars": {"name": "Ada", "order_id": "A-1042"}},
            {"to": "grace@example.com", "vars": {"name": "Grace", "order_id": "A-1043"}},
        ],
    },
    "DomainCreate": {"domain": "acme.example", "tracking_subdomain": "links"},
    "DomainUpdate": {
        "tracking_subdomain": "click",
        "shared_with_company": True,
        "external_accounts": ["acct_3f9c2d7e1b8a4c60"],
    },
    "KeyCreate": {"name": "checkout service", "scope": "send_only", "env": "live", "ip_allowlist": []},
    "KeyUpdate": {"name": "checkout service (eu)"},
    "ListCreate": {"address": "news@lists.acme.example", "name": "Newsletter", "description": "Monthly product news"},
    "ListUpdate": {"description": "Product news, twice a month"},
    "MemberCreate": {"address": "ada@example.com", "name": "Ada Lovelace", "vars": {"plan": "pro"}},
    "MemberUpdate": {"subscribed": False},
    "BulkMembersRequest": {
        "members": [{"address": "ada@example.com", "name": "Ada"}, {"address": "grace@example.com"}],
        "replace_vars": False,
    },
    "SuppressionCreate": {"type": "unsubscribes", "email": "ada@example.com", "reason": "asked by phone"},
    "BulkSuppressionRequest": {
        "type": "bounces",
        "entries": [{"email": "gone@example.com", "reason": "mailbox closed"}, {"email": "old@example.com"}],
    },
    "BulkSuppressionDelete": {"type": "bounces", "emails": ["fixed@example.com", "back@example.com"]},
    "SuppressionRemoval": {"remove_unsubscribes": True},
    "SuppressionImportRequest": {
        "type": "unsubscribes",
        "filename": "unsubscribes.csv",
        "csv": "email,reason\nada@example.com,old list\n",
    },
    "SuppressionExportRequest": {"type": "complaints"},
    "TemplateCreate": {
        "name": "order-shipped",
        "subject": "Your order {{order_id}} has shipped",
        "html": "<p>Hi {{name}}, your order is on its way.</p>",
        "text_body": "Hi {{name}}, your order is on its way.",
        "vars_schema": {"type": "object", "required": ["name", "order_id"]},
    },
    "TemplateUpdate": {"subject": "Shipped: order {{order_id}}"},
    "SampleRequest": {"event": "bounced"},
    "TemplatePreview": {"template_id": "tpl_4f1c2a9e7b3d", "vars": {"name": "Ada", "order_id": "A-1042"}},
    "ValidateRequest": {"email": "ada@example.com"},
    "EvaluateRequest": {"emails": ["ada@example.com", "grace@example.org"]},
    "BulkCreate": {"emails": ["ada@example.com", "grace@example.org"], "suppress": True},
    "ProofVerifyRequest": {
        "fingerprint": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "signature": "MEUCIQC4p2yJ0hG7v3Qy1mY6w0a9mFzQ9kq5H4iA5dPz8H3m6wIgNnXo1W0a==",
    },
    "EventExportRequest": {
        "event": "bounced",
        "since": "2026-11-01T00:00:00Z",
        "until": "2026-11-28T00:00:00Z",
        "format": "csv",
    },
    "SubaccountCreate": {"name": "Acme Europe", "slug": "acme-eu"},
    "SubaccountUpdate": {"name": "Acme Europe GmbH"},
    # no "default" key beside "type": Spectral would take the example for a schema with a default
    "IpPoolCreate": {"name": "transactional-eu", "type": "warming", "region": "eu-west-1"},
    "IpPoolUpdate": {"type": "dedicated"},
    "IpAssign": {"ip": "192.0.2.17"},
    "DataRemovalRequest": {"email": "ada@example.com", "include_subaccounts": True},
    "UploadCreate": {"filename": "price-list.pdf", "size_bytes": 482113, "expires_at": "2026-12-31T23:59:59Z"},
    "UploadUpdate": {"expires_at": "2027-01-31T23:59:59Z"},
    "WebhookCreate": {
        "url": "https://hooks.acme.example/postline",
        "events": ["delivered", "bounced", "complained"],
        "description": "delivery status to the orders service",
        "auth": {"hmac": {}},
    },
    "WebhookUpdate": {"enabled": False},
}

# Each operation's tag, with the line the API reference shows under it (Spectral fails on a tag
# without one).
TAGS: dict[str, str] = {
    "Messages": "Send one message, a batch or a list send; schedule and cancel.",
    "Events": "Every stage of every message: query, and export as CSV.",
    "Webhooks": "Endpoints that receive events, signed; their deliveries and resends.",
    "Domains": "Sending domains and the DNS records that authenticate them.",
    "Templates": "Stored subjects and bodies with variables.",
    "Suppressions": "Addresses never mailed: bounces, unsubscribes, complaints; the allowlist.",
    "Lists": "Mailing lists, their members, and sends to them.",
    "Verification": "Address checks, one at a time or in bulk, with signed result files.",
    "Metrics": "Delivery and engagement counts over time.",
    "Keys": "API keys, their scopes, environments and IP allowlists.",
    "Subaccounts": "An organisation's workspaces, and acting on their behalf.",
    "Identity": "Who the caller is.",
    "Usage": "Quota, credits and rate limits.",
    "Audit": "Every management write, newest first.",
    "Tracking": "Open, click, download and unsubscribe links in sent mail (no key).",
    "Uploads": "Hosted files for messages to link to, with tracked downloads.",
    "IP pools": "Dedicated and warming source addresses, and the platform's shared pools.",
    "Data removals": "Erasure of everything held about an address, with a signed receipt.",
}
