"""The official Standard Webhooks verifiers, for Python (PyPI `standardwebhooks`) and JavaScript
(npm `standardwebhooks`, installed by `make test` in tests/peers/standard_webhooks_js), and PyNaCl
for the asymmetric `v1a` signature the libraries do not check yet.

Each verifier judges the timestamp by the sender's clock (`now`): the embedded runtime's clock is
real time plus an offset that tests move forward. Only the clock is set; the verification is theirs.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest import mock

import standardwebhooks.webhooks
from nacl.signing import VerifyKey

JS_PEER = Path(__file__).parent / "standard_webhooks_js"


def verify_python(secret: str, body: bytes, headers: dict[str, str], now: datetime) -> Any:
    class SenderClock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> SenderClock:  # type: ignore[override]
            return cls.fromtimestamp(now.timestamp(), tz)

    with mock.patch.object(standardwebhooks.webhooks, "datetime", SenderClock):
        return standardwebhooks.webhooks.Webhook(secret).verify(body, headers)


def verify_javascript(secret: str, body: bytes, headers: dict[str, str], now: datetime) -> Any:
    node = shutil.which("node")
    assert node, "Node.js runs the JavaScript verifier"
    assert (JS_PEER / "node_modules" / "standardwebhooks").is_dir(), "`make test` runs npm ci in " + str(JS_PEER)
    document = {"secret": secret, "body": body.decode(), "headers": headers, "now": int(now.timestamp())}
    done = subprocess.run(
        [node, "verify.mjs"], cwd=JS_PEER, input=json.dumps(document), capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0:
        raise AssertionError(f"the JavaScript verifier refused the webhook: {done.stderr.strip()}")
    return json.loads(done.stdout)


def v1a_signatures(headers: dict[str, str]) -> list[bytes]:
    lowered = {name.lower(): value for name, value in headers.items()}
    versioned = (part.split(",", 1) for part in lowered["webhook-signature"].split(" "))
    return [base64.b64decode(signature) for version, signature in versioned if version == "v1a"]


def verify_v1a(body: bytes, headers: dict[str, str], public_key: bytes) -> None:
    """Ed25519 over `{webhook-id}.{webhook-timestamp}.{body}` (the spec's asymmetric `v1a`)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    content = f"{lowered['webhook-id']}.{lowered['webhook-timestamp']}.".encode() + body
    (signature,) = v1a_signatures(headers)
    VerifyKey(public_key).verify(content, signature)
