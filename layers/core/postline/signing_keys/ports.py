"""The platform's Ed25519 signing keys.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from postline.signing_keys.domain import SigningKey


class SigningKeyStore(Protocol):
    def keys(self) -> list[SigningKey]: ...

    def published(self, now: datetime) -> list[SigningKey]: ...

    def rotate(self, now: datetime, *, force: bool = False) -> str | None:
        """Mints a new active key when due (or forced); the new kid, or None."""
        ...


class Signer(Protocol):
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, Ed25519 signature) by the active platform key."""
        ...
