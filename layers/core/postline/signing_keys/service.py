"""The webhook signing keys receivers verify against (GET /.well-known/svc/keys)."""

from __future__ import annotations

from postline.shared.ports import Clock
from postline.signing_keys.domain import SigningKey
from postline.signing_keys.ports import SigningKeyStore


class SigningKeyService:
    def __init__(self, store: SigningKeyStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def published(self) -> list[SigningKey]:
        """Newest first; mints the first key, so receivers can fetch it before any delivery."""
        now = self._clock.now()
        if not self._store.keys():
            self._store.rotate(now)
        return self._store.published(now)
