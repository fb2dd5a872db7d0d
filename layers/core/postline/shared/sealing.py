"""AES-GCM under a random 96-bit nonce, the nonce stored before the ciphertext: how message content
(sending/vault.py) and webhook endpoint secrets (webhooks/store.py) are sealed. From `cryptography`,
the audited primitive, not hand-written crypto."""

from __future__ import annotations

import os

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_NONCE = 12


def seal_bytes(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    nonce = os.urandom(_NONCE)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def open_bytes(key: bytes, sealed: bytes, aad: bytes) -> bytes:
    return AESGCM(key).decrypt(sealed[:_NONCE], sealed[_NONCE:], aad)
