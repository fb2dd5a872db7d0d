"""Webhook signing keys: a kind of sealed platform key (shared/sealed_keys.py), group `SIGNKEY`.

    PLATFORM   SIGNKEY#<kid>      a key: kid, public half (base64), KMS-sealed seed, created_at,
                                  and replaced_at once a newer key signs
    PLATFORM   SIGNKEY            pointer: `kid`, the active key; minting is a transaction conditioned
                                  on it, so two cold containers never both mint one

Ed25519 comes from PyNaCl (libsodium), not hand-written. When to rotate and what to publish is
the service's (signing_keys/service.py); this store mints, signs and forgets keys.
"""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

from nacl.signing import SigningKey as NaclSigningKey

from postline.shared.sealed_keys import SealedPlatformKeys
from postline.signing_keys.domain import SigningKey

GROUP = "SIGNKEY"
PURPOSE = "webhook-signing"  # the encryption context's purpose, with the kid


class DynamoSigningKeys:
    def __init__(self, client: Any, table: str, kms: Any, kms_key_id: str) -> None:
        self._store = SealedPlatformKeys(client, table, kms, kms_key_id, purpose=PURPOSE)
        # The signer of each opened seed: deriving the key pair is a scalar multiplication a
        # signature need not repeat (the seed itself is already kept opened, sealed_keys.py).
        self._signers: dict[bytes, NaclSigningKey] = {}

    def keys(self) -> list[SigningKey]:
        return [
            SigningKey(
                kid=item["kid"],
                public_key=base64.b64decode(item["public_key"]),
                created_at=item["created_at"],
                replaced_at=item.get("replaced_at"),
            )
            for item in self._store.group(GROUP).keys.values()
        ]

    def sign_with(self, kid: str, content: bytes) -> bytes:
        seed = self._store.open(self._store.group(GROUP).keys[kid]["private_key"], {"kid": kid})
        signer = self._signers.get(seed)
        if signer is None:
            signer = self._signers[seed] = NaclSigningKey(seed)
        return signer.sign(content).signature

    def remove(self, kid: str) -> None:
        self._store.remove(GROUP, kid)

    def mint(self, kid: str, now: datetime, *, replacing: SigningKey | None) -> bool:
        """A new key pair, generated here so its seed exists only sealed by KMS, stored as the active
        key in one transaction conditioned on the pointer still naming `replacing` (which gets its
        replaced_at); False when another container rotated first (its key is the active one)."""
        seed = NaclSigningKey.generate()
        item = {
            "kid": kid,
            "public_key": base64.b64encode(bytes(seed.verify_key)).decode(),
            "private_key": self._store.seal(bytes(seed), {"kid": kid}),
            "created_at": now.isoformat(),
        }
        return self._store.add(
            GROUP,
            kid,
            item,
            role="kid",
            replacing=replacing.kid if replacing else None,
            on_replaced={"replaced_at": now.isoformat()},
        )
