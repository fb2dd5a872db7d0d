"""Certificates for TLS and mTLS tests, made on the spot with `cryptography` (no files from anywhere)."""

from __future__ import annotations

import ipaddress
import ssl
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey


def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def key_pem(key: PrivateKey, password: bytes | None = None) -> str:
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    )
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption).decode()


def certificate(
    key: PrivateKey,
    *,
    common_name: str = "webhooks.client.example",
    not_before: datetime | None = None,
    not_after: datetime | None = None,
) -> x509.Certificate:
    now = datetime.now(UTC)
    name = x509.Name(
        [x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Acme"), x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    )
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before or now - timedelta(days=1))
        .not_valid_after(not_after or now + timedelta(days=90))
        .sign(key, None if isinstance(key, ed25519.Ed25519PrivateKey) else hashes.SHA256())
    )


def cert_pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def client_pair(*, not_before: datetime | None = None, not_after: datetime | None = None) -> tuple[str, str]:
    """(certificate PEM, private key PEM) of a fresh self-signed EC client certificate."""
    key = ec_key()
    return cert_pem(certificate(key, not_before=not_before, not_after=not_after)), key_pem(key)


@dataclass(frozen=True)
class TestCa:
    """A certificate authority made for the test session: it issues receivers' server certificates
    (the runtime trusts it through WebhookCaBundle) and the client certificates mTLS receivers accept."""

    __test__ = False

    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate

    @classmethod
    def create(cls, common_name: str = "Postline Test CA") -> TestCa:
        key = ec_key()
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
        now = datetime.now(UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(_CA_USAGE, critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256())
        )
        return cls(key, cert)

    @property
    def pem(self) -> str:
        return cert_pem(self.cert)

    def issue(
        self, common_name: str, *, server: bool = False, dns_names: tuple[str, ...] = ("localhost",)
    ) -> tuple[str, str]:
        """(certificate PEM, private key PEM): a server certificate for 127.0.0.1 and dns_names, or a client one.
        Valid ten years: the runtime's clock, which checks a client certificate at save time, only
        moves forward."""
        key = ec_key()
        now = datetime.now(UTC)
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), critical=False)
        )
        if server:
            names = [x509.IPAddress(ipaddress.IPv4Address("127.0.0.1")), *map(x509.DNSName, dns_names)]
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        return cert_pem(builder.sign(self.key, hashes.SHA256())), key_pem(key)


_CA_USAGE = x509.KeyUsage(
    digital_signature=True,
    content_commitment=False,
    key_encipherment=False,
    data_encipherment=False,
    key_agreement=False,
    key_cert_sign=True,
    crl_sign=True,
    encipher_only=False,
    decipher_only=False,
)


def server_context(cert: str, key: str, *, client_ca: str | None = None) -> ssl.SSLContext:
    """A TLS server context from PEM text; with client_ca it requires a client certificate that CA issued."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as directory:  # load_cert_chain only reads files
        cert_path, key_path = Path(directory) / "server.crt", Path(directory) / "server.key"
        cert_path.write_text(cert)
        key_path.write_text(key)
        context.load_cert_chain(cert_path, key_path)
    if client_ca is not None:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(cadata=client_ca)
    return context
