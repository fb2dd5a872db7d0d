"""The platform's Ed25519 signing keys.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.signing_keys.domain import SigningKey


class SigningKeyStore(Protocol):
    def keys(self) -> list[SigningKey]:
        """Every stored key, public halves (a container may cache them for a minute)."""
        ...

    def mint(self, kid: str, now: datetime, *, replacing: SigningKey | None) -> bool:
        """Generates a key pair and stores it as the active key, replacing `replacing`; False when
        the active key is no longer `replacing` (another container rotated first)."""
        ...

    def remove(self, kid: str) -> None: ...

    def sign_with(self, kid: str, content: bytes) -> bytes:
        """The Ed25519 signature of `content` by the stored key `kid`."""
        ...


class Signer(Protocol):
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, Ed25519 signature) by the active platform key."""
        ...
