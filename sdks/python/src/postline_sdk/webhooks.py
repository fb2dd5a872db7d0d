"""Verifying a received webhook: the interface's Ed25519 header (every delivery) and its HMAC header
(endpoints in hmac mode). For the Standard Webhooks headers, use the official `standardwebhooks`
package; both are sent on every delivery.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

import httpx
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

ED25519_HEADER = "Svc-Signature-Ed25519"
HMAC_HEADER = "X-Svc-Signature"
TOLERANCE_SECONDS = 300  # the interface: receivers reject timestamps older than 5 minutes


class WebhookVerificationError(Exception):
    """The signature does not match, is missing, or is too old."""


def public_keys(base_url: str, *, client: httpx.Client | None = None) -> dict[str, bytes]:
    """The platform's Ed25519 keys by kid, from `/.well-known/svc/keys` (a JWK Set, RFC 8037)."""
    http = client or httpx.Client()
    response = http.get(f"{base_url.rstrip('/')}/.well-known/svc/keys", timeout=10)
    response.raise_for_status()
    return {key["kid"]: _unpadded_urlsafe(key["x"]) for key in response.json()["keys"]}


def verify_ed25519(
    body: bytes, headers: Mapping[str, str], keys: Mapping[str, bytes], *, now: float | None = None
) -> Any:
    """The parsed payload when `Svc-Signature-Ed25519` (t=,v1=,kid=) verifies over `{t}.{body}`."""
    parts = _parts(_header(headers, ED25519_HEADER))
    key = keys.get(parts.get("kid", ""))
    if key is None:
        raise WebhookVerificationError("signed by a key not in the set: fetch /.well-known/svc/keys again")
    _fresh(parts, now)
    try:
        VerifyKey(key).verify(f"{parts['t']}.".encode() + body, base64.b64decode(parts.get("v1", "")))
    except (BadSignatureError, ValueError) as error:
        raise WebhookVerificationError("the Ed25519 signature does not match") from error
    return json.loads(body)


def verify_hmac(
    body: bytes, headers: Mapping[str, str], secret: str, *, header: str = HMAC_HEADER, now: float | None = None
) -> Any:
    """The parsed payload when one `v1` of the hmac header (t=,v1=,...) is HMAC-SHA256 of `{t}.{body}`."""
    value = _header(headers, header)
    pairs = [item.split("=", 1) for item in value.split(",") if "=" in item]
    parts = dict(pairs)
    _fresh(parts, now)
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256).hexdigest()
    if not any(name == "v1" and hmac.compare_digest(sig, expected) for name, sig in pairs):
        raise WebhookVerificationError("no v1 signature matches the secret")
    return json.loads(body)


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    raise WebhookVerificationError(f"no {name} header")


def _parts(value: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in value.split(",") if "=" in item)


def _fresh(parts: Mapping[str, str], now: float | None) -> None:
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError) as error:
        raise WebhookVerificationError("no timestamp in the signature") from error
    if abs((time.time() if now is None else now) - timestamp) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("the timestamp is more than 5 minutes away")


def _unpadded_urlsafe(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
