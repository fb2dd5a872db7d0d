"""DKIM signing keys: 2048-bit RSA (RFC 8301's recommended size), made with `cryptography`."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


class RsaDkimKeys:
    def new_key(self) -> tuple[str, str]:
        return key_pair(rsa.generate_private_key(public_exponent=65537, key_size=2048))


def key_pair(private_key: rsa.RSAPrivateKey) -> tuple[str, str]:
    """(PKCS #8 PEM, base64 DER SubjectPublicKeyInfo: the p= of the DKIM record)."""
    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_der = private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return pem.decode(), base64.b64encode(public_der).decode()
