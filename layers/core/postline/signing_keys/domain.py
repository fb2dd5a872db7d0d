"""The platform's Ed25519 webhook signing keys: which one signs, which ones are published.

Keys rotate by kid. The newest key signs; a replaced key stays published for a grace period so
receivers holding a delivery signed just before the rotation can still verify it, then it is
dropped. GET /.well-known/svc/keys publishes the public halves as a JSON Web Key Set (RFC 8037).
"""

from __future__ import annotations

import base64
from datetime import datetime, timedelta

from postline.shared.base import Model

ROTATE_EVERY = timedelta(days=90)
PUBLISHED_AFTER_REPLACEMENT = timedelta(days=7)


class SigningKey(Model):
    kid: str
    public_key: bytes  # 32 raw bytes
    created_at: datetime
    replaced_at: datetime | None = None

    def jwk(self) -> dict[str, str]:
        x = base64.urlsafe_b64encode(self.public_key).rstrip(b"=").decode()
        return {"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": self.kid, "x": x}


def new_kid(now: datetime, suffix: str) -> str:
    return f"ed25519-{now:%Y%m%d}-{suffix}"


def active(keys: list[SigningKey]) -> SigningKey | None:
    """The key that signs: the newest not yet replaced."""
    current = [key for key in keys if key.replaced_at is None]
    return max(current, key=lambda key: key.created_at) if current else None


def published(keys: list[SigningKey], now: datetime) -> list[SigningKey]:
    """Newest first: the active key and the replaced ones still in their grace period."""
    live = [key for key in keys if key.replaced_at is None or now - key.replaced_at < PUBLISHED_AFTER_REPLACEMENT]
    return sorted(live, key=lambda key: key.created_at, reverse=True)


def due_for_rotation(keys: list[SigningKey], now: datetime) -> bool:
    current = active(keys)
    return current is None or now - current.created_at >= ROTATE_EVERY


def expired(keys: list[SigningKey], now: datetime) -> list[SigningKey]:
    """Replaced keys past their grace period: safe to delete."""
    return [key for key in keys if key.replaced_at and now - key.replaced_at >= PUBLISHED_AFTER_REPLACEMENT]
