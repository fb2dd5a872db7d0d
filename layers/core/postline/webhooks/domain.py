"""Webhook endpoints: where events are POSTed, which ones, and how the receiver knows it is us.

Pure rules: the auth modes and what each stores, header names a customer may set, the hmac
secret's rotation overlap, mTLS material checks, and a webhook URL's shape (which addresses it may
reach is the outbound address policy's: postline/egress/addresses.py).
Secrets come from the caller (an IdFactory), time is passed in, DNS resolution is an adapter's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Literal
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from pydantic import AfterValidator, Field

from postline.events.domain import EventType
from postline.shared.base import Model
from postline.shared.errors import ValidationFailed

# The event types an endpoint can subscribe to: every public one in the interface, not `duplicate`.
WEBHOOK_EVENT_TYPES: tuple[EventType, ...] = tuple(t for t in EventType if t is not EventType.DUPLICATE)

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
SECRET_RANDOM_LENGTH = 32  # url-safe random characters after the prefix
DEFAULT_SIGNATURE_HEADER = "X-Svc-Signature"
SECRET_OVERLAP = timedelta(hours=24)  # the previous hmac secret still signs this long after a rotation
MAX_CUSTOM_HEADERS = 5
MAX_PEM_BYTES = 16 * 1024
MAX_URL_LENGTH = 2048
MAX_DESCRIPTION_LENGTH = 500


class AuthMode(StrEnum):
    HMAC = "hmac"
    BEARER = "bearer"
    BASIC = "basic"
    CUSTOM_HEADERS = "custom_headers"
    OAUTH2 = "oauth2"
    MTLS = "mtls"


class DisabledReason(StrEnum):
    MANUAL = "manual"
    AUTO_FAILURES = "auto_failures"


# -- field rules ------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}")  # an HTTP header name (RFC 9110 token)
_HEADER_VALUE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?")  # visible ASCII, no edge blanks
_SECRET = re.compile(re.escape(SECRET_PREFIX) + r"[A-Za-z0-9_-]{32,}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# Headers a customer may not set: the transport's own, and the ones our signatures and retries use.
RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "content-encoding",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "expect",
        "proxy-authorization",
        "proxy-connection",
        "user-agent",
        "x-webhook-attempt",
    }
)
RESERVED_HEADER_PREFIXES = ("x-svc-", "svc-")


def check_header_name(name: str) -> str:
    if not _TOKEN.fullmatch(name):
        raise ValueError(f"{name!r} is not a valid HTTP header name (1-64 token characters)")
    lowered = name.lower()
    if lowered in RESERVED_HEADERS or lowered.startswith(RESERVED_HEADER_PREFIXES):
        raise ValueError(f"header {name!r} is reserved (X-Svc-*, Svc-*, X-Webhook-Attempt and transport headers)")
    return name


def check_signature_header(name: str) -> str:
    """The hmac signature goes in X-Svc-Signature or any header a customer could set."""
    return name if name == DEFAULT_SIGNATURE_HEADER else check_header_name(name)


def check_header_value(value: str) -> str:
    if not _HEADER_VALUE.fullmatch(value):
        raise ValueError("header values are visible ASCII (spaces inside only), without control characters")
    return value


def check_custom_headers(headers: dict[str, str]) -> dict[str, str]:
    lowered = {name.lower() for name in headers}
    if len(lowered) != len(headers):
        raise ValueError("custom header names must differ regardless of case")
    return headers


def check_no_control(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("control characters are not allowed")
    return value


def check_visible(value: str) -> str:
    if not re.fullmatch(r"[\x21-\x7e]+", value):
        raise ValueError("only visible ASCII characters, no spaces")
    return value


def check_basic_username(value: str) -> str:
    if ":" in value:
        raise ValueError("a basic auth username cannot contain ':'")
    return check_no_control(value)


def check_secret(value: str) -> str:
    if not _SECRET.fullmatch(value):
        raise ValueError(f"an hmac secret is {SECRET_PREFIX} followed by 32+ url-safe characters")
    return value


def check_url_shape(url: str) -> str:
    """http(s), a host, no credentials, no fragment. Which schemes and hosts are allowed is the
    URL guard's call (it knows the setting and resolves the host)."""
    url_target(url)  # raises ValueError
    return url


HeaderName = Annotated[str, AfterValidator(check_header_name)]
HeaderValue = Annotated[str, Field(min_length=1, max_length=2048), AfterValidator(check_header_value)]
CustomHeaders = Annotated[
    dict[HeaderName, HeaderValue],
    Field(min_length=1, max_length=MAX_CUSTOM_HEADERS),
    AfterValidator(check_custom_headers),
]
SignatureHeader = Annotated[str, AfterValidator(check_signature_header)]
HmacSecret = Annotated[str, AfterValidator(check_secret)]
WebhookUrl = Annotated[str, Field(min_length=1, max_length=MAX_URL_LENGTH), AfterValidator(check_url_shape)]
Text = Annotated[str, Field(min_length=1, max_length=1024), AfterValidator(check_no_control)]
Description = Annotated[str, Field(max_length=MAX_DESCRIPTION_LENGTH), AfterValidator(check_no_control)]
BearerToken = Annotated[str, Field(min_length=1, max_length=4096), AfterValidator(check_visible)]
BasicUsername = Annotated[str, Field(min_length=1, max_length=256), AfterValidator(check_basic_username)]
BasicPassword = Annotated[str, Field(min_length=1, max_length=1024), AfterValidator(check_no_control)]
ClientSecret = Annotated[str, Field(min_length=1, max_length=2048), AfterValidator(check_no_control)]


def check_events(events: list[EventType]) -> list[EventType]:
    if EventType.DUPLICATE in events:
        raise ValueError(f"webhooks carry these event types: {', '.join(WEBHOOK_EVENT_TYPES)}")
    return list(dict.fromkeys(events))  # repeated types subscribe once


WebhookEvents = Annotated[list[EventType], Field(min_length=1), AfterValidator(check_events)]


# -- auth modes -------------------------------------------------------------------------------------


def key_id_of(secret: str) -> str:
    """What X-Svc-Key-Id carries: the whsec_ prefix plus the secret's last 4 characters."""
    return SECRET_PREFIX + secret[-4:]


class HmacAuth(Model):
    mode: Literal[AuthMode.HMAC] = AuthMode.HMAC
    secret: HmacSecret
    header: SignatureHeader = DEFAULT_SIGNATURE_HEADER
    previous_secret: HmacSecret | None = None
    previous_expires_at: datetime | None = None

    @property
    def key_id(self) -> str:
        return key_id_of(self.secret)

    def previous_valid(self, now: datetime) -> bool:
        expires = self.previous_expires_at
        return self.previous_secret is not None and expires is not None and now < expires

    def valid_secrets(self, now: datetime) -> list[str]:
        """Secrets to sign with: the current one first, the previous one while its overlap lasts."""
        previous = self.previous_secret if self.previous_valid(now) else None
        return [self.secret, previous] if previous else [self.secret]

    def rotated(self, new_secret: str, now: datetime) -> HmacAuth:
        """The current secret becomes the previous one for SECRET_OVERLAP; an older previous is dropped."""
        return HmacAuth(
            secret=new_secret,
            header=self.header,
            previous_secret=self.secret,
            previous_expires_at=now + SECRET_OVERLAP,
        )


class BearerAuth(Model):
    mode: Literal[AuthMode.BEARER] = AuthMode.BEARER
    token: BearerToken


class BasicAuth(Model):
    mode: Literal[AuthMode.BASIC] = AuthMode.BASIC
    username: BasicUsername
    password: BasicPassword


class CustomHeadersAuth(Model):
    mode: Literal[AuthMode.CUSTOM_HEADERS] = AuthMode.CUSTOM_HEADERS
    headers: CustomHeaders


class OAuth2Auth(Model):
    """Client credentials; the token URL goes through the same URL guard as the endpoint's."""

    mode: Literal[AuthMode.OAUTH2] = AuthMode.OAUTH2
    token_url: WebhookUrl
    client_id: Text
    client_secret: ClientSecret
    scope: Text | None = None
    audience: Text | None = None


class MtlsAuth(Model):
    """Build with `mtls_auth`, which validates the pair; the key never leaves storage but to sign."""

    mode: Literal[AuthMode.MTLS] = AuthMode.MTLS
    cert_pem: str
    key_pem: str
    fingerprint_sha256: str  # lowercase hex of the SHA-256 of the certificate's DER
    subject: str  # RFC 4514
    expires_at: datetime


EndpointAuth = Annotated[
    HmacAuth | BearerAuth | BasicAuth | CustomHeadersAuth | OAuth2Auth | MtlsAuth, Field(discriminator="mode")
]

_TLS_KEY_TYPES = (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)


def mtls_auth(cert_pem: str, key_pem: str, now: datetime) -> MtlsAuth:
    """Checks a client certificate and its private key at save time: sizes, parse, validity, match."""
    for name, pem in (("cert_pem", cert_pem), ("key_pem", key_pem)):
        if len(pem.encode()) > MAX_PEM_BYTES:
            raise ValidationFailed(f"auth.mtls.{name} is larger than {MAX_PEM_BYTES} bytes.")
    try:
        cert = x509.load_pem_x509_certificate(cert_pem.encode())
    except ValueError as exc:
        raise ValidationFailed("auth.mtls.cert_pem is not a PEM X.509 certificate.") from exc
    try:
        key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise ValidationFailed("auth.mtls.key_pem is not an unencrypted PEM private key.") from exc
    if not isinstance(key, _TLS_KEY_TYPES):
        raise ValidationFailed("auth.mtls.key_pem must be an RSA, EC, Ed25519 or Ed448 key.")
    expires_at = cert.not_valid_after_utc
    if expires_at <= now:
        raise ValidationFailed(f"The certificate expired at {expires_at.isoformat()}.")
    if cert.not_valid_before_utc > now:
        raise ValidationFailed(f"The certificate is not valid before {cert.not_valid_before_utc.isoformat()}.")
    spki = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    if key.public_key().public_bytes(*spki) != cert.public_key().public_bytes(*spki):
        raise ValidationFailed("auth.mtls.key_pem is not the private key of the certificate.")
    return MtlsAuth(
        cert_pem=cert_pem,
        key_pem=key_pem,
        fingerprint_sha256=cert.fingerprint(hashes.SHA256()).hex(),
        subject=cert.subject.rfc4514_string(),
        expires_at=expires_at,
    )


# -- the endpoint -----------------------------------------------------------------------------------


class WebhookEndpoint(Model):
    id: str  # wh_...
    account_id: str
    url: WebhookUrl
    events: WebhookEvents = Field(default_factory=lambda: list(WEBHOOK_EVENT_TYPES))
    description: Description | None = None
    enabled: bool = True
    disabled_reason: DisabledReason | None = None
    disabled_at: datetime | None = None
    auth: EndpointAuth | None = None
    consecutive_failures: int = Field(default=0, ge=0)  # fully-failed deliveries since the last success
    failing_since: datetime | None = None  # when that failure streak began
    created_at: datetime
    updated_at: datetime

    @property
    def status(self) -> Literal["active", "disabled"]:
        return "active" if self.enabled else "disabled"

    def wants(self, event_type: EventType) -> bool:
        return self.enabled and event_type in self.events

    def disable(self, reason: DisabledReason, now: datetime) -> WebhookEndpoint:
        """Disabled with its reason; an endpoint already disabled keeps its first reason and time."""
        if not self.enabled:
            return self
        return self.model_copy(
            update={"enabled": False, "disabled_reason": reason, "disabled_at": now, "updated_at": now}
        )

    def enable(self, now: datetime) -> WebhookEndpoint:
        """Active again with a fresh failure budget (streak back to 0)."""
        if self.enabled:
            return self
        return self.model_copy(
            update={
                "enabled": True,
                "disabled_reason": None,
                "disabled_at": None,
                "consecutive_failures": 0,
                "failing_since": None,
                "updated_at": now,
            }
        )


# -- where webhooks may go ----------------------------------------------------------------------------


@dataclass(frozen=True)
class UrlTarget:
    scheme: Literal["http", "https"]
    host: str  # lowercase; an IPv6 literal without brackets
    port: int


def url_target(url: str) -> UrlTarget:
    """The scheme, host and port of a webhook URL; ValueError when it is not one."""
    if len(url) > MAX_URL_LENGTH:
        raise ValueError(f"a webhook URL is at most {MAX_URL_LENGTH} characters")
    if _CONTROL.search(url) or " " in url:
        raise ValueError("a webhook URL contains no spaces or control characters")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError("a webhook URL starts with https:// (or http:// where private URLs are allowed)")
    if parts.username is not None or parts.password is not None:
        raise ValueError("a webhook URL cannot carry credentials; use the auth field")
    if parts.fragment:
        raise ValueError("a webhook URL has no #fragment")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError("the webhook URL's port is not a number from 1 to 65535") from exc
    host = parts.hostname
    if not host:
        raise ValueError("a webhook URL names a host")
    if port == 0:
        raise ValueError("the webhook URL's port is not a number from 1 to 65535")
    default_port = 443 if scheme == "https" else 80
    return UrlTarget("https" if scheme == "https" else "http", host, port or default_port)
