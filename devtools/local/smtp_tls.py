"""The submission server's local certificate: self-signed for localhost and 127.0.0.1, made once
with `cryptography` and kept in the state dir (smtp-cert.pem, smtp-key.pem), so a client that
trusts it once (`--tls-ca-path`, `cafile=`) keeps trusting it across restarts."""

from __future__ import annotations

import ipaddress
import ssl
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

CERT_FILE = "smtp-cert.pem"
KEY_FILE = "smtp-key.pem"
_VALID_DAYS = 825  # the longest a TLS client still accepts
_RENEW_BEFORE = timedelta(days=30)


def local_certificate(state_dir: Path) -> tuple[Path, Path]:
    """(certificate, key) paths in `state_dir`, made (again) when missing or about to expire."""
    cert_path, key_path = state_dir / CERT_FILE, state_dir / KEY_FILE
    now = datetime.now(UTC)
    if cert_path.exists() and key_path.exists():
        existing = x509.load_pem_x509_certificate(cert_path.read_bytes())
        if existing.not_valid_after_utc - _RENEW_BEFORE > now:
            return cert_path, key_path
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=_VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    key_path.chmod(0o600)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context
