"""GET /.well-known/svc/keys: a JSON Web Key Set (RFC 8037, OKP/Ed25519)."""

from __future__ import annotations

from postline.shared.base import Model
from postline.signing_keys.domain import SigningKey


class PublicKey(Model):
    kty: str
    crv: str
    alg: str
    use: str
    kid: str
    x: str  # the raw 32-byte public key, base64url without padding (RFC 8037)


class SigningKeySet(Model):
    keys: list[PublicKey]


def key_set(keys: list[SigningKey]) -> SigningKeySet:
    return SigningKeySet(keys=[PublicKey(**key.jwk()) for key in keys])
