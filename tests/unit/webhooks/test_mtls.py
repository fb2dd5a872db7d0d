"""mTLS material is checked at save time: size, parse, validity window, key matches certificate."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa, x25519

from postline.shared.errors import ValidationFailed
from postline.webhooks.domain import MAX_PEM_BYTES, mtls_auth
from tests.certs import cert_pem, certificate, client_pair, ec_key, key_pem

NOW = datetime.now(UTC)


def test_a_matching_pair_yields_fingerprint_subject_and_expiry() -> None:
    key = ec_key()
    cert = certificate(key, common_name="hooks.acme.example", not_after=NOW + timedelta(days=30))
    auth = mtls_auth(cert_pem(cert), key_pem(key), NOW)
    der = cert.public_bytes(serialization.Encoding.DER)
    assert auth.fingerprint_sha256 == hashlib.sha256(der).hexdigest()
    assert auth.subject == "CN=hooks.acme.example,O=Acme"
    assert auth.expires_at == cert.not_valid_after_utc
    assert auth.key_pem == key_pem(key) and auth.cert_pem == cert_pem(cert)


def test_rsa_and_ed25519_keys_are_accepted() -> None:
    for key in (rsa.generate_private_key(public_exponent=65537, key_size=2048), ed25519.Ed25519PrivateKey.generate()):
        assert mtls_auth(cert_pem(certificate(key)), key_pem(key), NOW).subject == "CN=webhooks.client.example,O=Acme"


def test_a_key_of_another_certificate_is_refused() -> None:
    cert, _ = client_pair()
    _, other_key = client_pair()
    with pytest.raises(ValidationFailed, match="not the private key of the certificate"):
        mtls_auth(cert, other_key, NOW)


def test_expired_and_not_yet_valid_certificates_are_refused() -> None:
    expired = client_pair(not_before=NOW - timedelta(days=10), not_after=NOW - timedelta(seconds=1))
    with pytest.raises(ValidationFailed, match="expired"):
        mtls_auth(*expired, NOW)
    future = client_pair(not_before=NOW + timedelta(days=1), not_after=NOW + timedelta(days=10))
    with pytest.raises(ValidationFailed, match="not valid before"):
        mtls_auth(*future, NOW)


def test_pem_over_16_kb_is_refused_before_parsing() -> None:
    cert, key = client_pair()
    padded = cert + "\n" * (MAX_PEM_BYTES + 1 - len(cert))
    assert len(padded.encode()) == MAX_PEM_BYTES + 1
    with pytest.raises(ValidationFailed, match="larger than 16384 bytes"):
        mtls_auth(padded, key, NOW)
    with pytest.raises(ValidationFailed, match="key_pem is larger"):
        mtls_auth(cert, key + "é" * (MAX_PEM_BYTES // 2), NOW)  # bytes count, not characters


@pytest.mark.parametrize(
    ("cert", "key", "message"),
    [
        ("garbage", None, "cert_pem is not a PEM X.509 certificate"),
        ("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", None, "cert_pem is not"),
        (None, "garbage", "key_pem is not an unencrypted PEM private key"),
        (None, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "key_pem is not"),
    ],
)
def test_garbage_is_refused(cert: str | None, key: str | None, message: str) -> None:
    good_cert, good_key = client_pair()
    with pytest.raises(ValidationFailed, match=message):
        mtls_auth(cert or good_cert, key or good_key, NOW)


def test_an_encrypted_key_is_refused() -> None:
    key = ec_key()
    with pytest.raises(ValidationFailed, match="unencrypted"):
        mtls_auth(cert_pem(certificate(key)), key_pem(key, password=b"hunter2"), NOW)


def test_a_key_that_cannot_sign_tls_is_refused() -> None:
    cert, _ = client_pair()
    pem = x25519.X25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(ValidationFailed, match="RSA, EC, Ed25519 or Ed448"):
        mtls_auth(cert, pem.decode(), NOW)
