"""The webhook signing keys: which one signs, when it rotates, and which ones receivers may fetch
(GET /.well-known/svc/keys)."""

from __future__ import annotations

from datetime import datetime

from postline.shared.ports import Clock, IdFactory
from postline.signing_keys.domain import SigningKey, active, due_for_rotation, expired, new_kid, published
from postline.signing_keys.models import SigningKeySet, key_set
from postline.signing_keys.ports import SigningKeyStore


class SigningKeyService:
    def __init__(self, store: SigningKeyStore, ids: IdFactory, clock: Clock) -> None:
        self._store = store
        self._ids = ids
        self._clock = clock

    def published(self) -> list[SigningKey]:
        """Newest first; mints the first key, so receivers can fetch it before any delivery."""
        now = self._clock.now()
        if not self._store.keys():
            self._rotate(now, force=False)
        return published(self._store.keys(), now)

    def key_set(self) -> SigningKeySet:
        """The published keys as receivers fetch them."""
        return key_set(self.published())

    def rotate(self, *, force: bool = False) -> str | None:
        """The daily schedule's: a new active key when the current one is due (or forced), and
        replaced keys past their grace period dropped. The new kid, or None."""
        return self._rotate(self._clock.now(), force=force)

    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, signature) by the active key, minting the first key on first use."""
        current = active(self._store.keys())
        if current is None:
            self._rotate(now, force=False)
            current = active(self._store.keys())
            assert current is not None, "a key was just created, here or by another container"
        return current.kid, self._store.sign_with(current.kid, content)

    def public_key(self, kid: str) -> bytes | None:
        """The raw public half of a stored key (published or not): proofs record the key they were
        signed with."""
        found = [stored for stored in self._store.keys() if stored.kid == kid]  # noqa: SIM118 (a store, not a dict)
        return found[0].public_key if found else None

    def _rotate(self, now: datetime, *, force: bool) -> str | None:
        keys = self._store.keys()
        for old in expired(keys, now):
            self._store.remove(old.kid)
        if not force and not due_for_rotation(keys, now):
            return None
        kid = new_kid(now, self._ids.secret(8))
        return kid if self._store.mint(kid, now, replacing=active(keys)) else None
