"""The TLS outcome of each SMTP session the relay opens to a recipient domain's MX (RFC 8460's result
and policy types): what the SMTP transport reports through the TlsSessions port, and what TLS-RPT
(tlsrpt/) counts and reports to the recipient domains."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum


class ResultType(StrEnum):
    """Section 4.3's result types (the DANE ones are not produced: the relay does not do DANE)."""

    STARTTLS_NOT_SUPPORTED = "starttls-not-supported"
    CERTIFICATE_HOST_MISMATCH = "certificate-host-mismatch"
    CERTIFICATE_EXPIRED = "certificate-expired"
    CERTIFICATE_NOT_TRUSTED = "certificate-not-trusted"
    VALIDATION_FAILURE = "validation-failure"
    STS_POLICY_FETCH_ERROR = "sts-policy-fetch-error"
    STS_POLICY_INVALID = "sts-policy-invalid"
    STS_WEBPKI_INVALID = "sts-webpki-invalid"


class PolicyType(StrEnum):
    STS = "sts"
    NO_POLICY = "no-policy-found"


@dataclass(frozen=True)
class AppliedPolicy:
    """The policy a session was judged by: an MTA-STS policy's text and MX patterns, or none."""

    type: PolicyType
    lines: tuple[str, ...] = ()
    mx: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Names the policy in storage: the same policy text, the same key."""
        text = json.dumps([self.type.value, list(self.lines)])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


NO_POLICY = AppliedPolicy(PolicyType.NO_POLICY)


@dataclass(frozen=True)
class TlsSession:
    """One SMTP session's TLS outcome at one MX of `policy_domain`; `failure` None is a success."""

    policy_domain: str
    policy: AppliedPolicy
    failure: ResultType | None = None
    mx_host: str = ""
    receiving_ip: str = ""

    @property
    def succeeded(self) -> bool:
        return self.failure is None


# OpenSSL's verify result codes (X509_V_ERR_*) that name a certificate fault more precisely.
_EXPIRED = {10}  # CERT_HAS_EXPIRED


_NOT_TRUSTED = {2, 18, 19, 20, 21, 27}  # unknown issuer, self-signed, no chain, untrusted


_HOST_MISMATCH = {62}  # HOSTNAME_MISMATCH


def classify_verify_code(verify_code: int | None) -> ResultType:
    """The result type of a STARTTLS handshake that failed while its certificate was checked:
    OpenSSL's verify result code when the certificate was refused (None: another handshake fault)."""
    if verify_code in _EXPIRED:
        return ResultType.CERTIFICATE_EXPIRED
    if verify_code in _HOST_MISMATCH:
        return ResultType.CERTIFICATE_HOST_MISMATCH
    if verify_code in _NOT_TRUSTED:
        return ResultType.CERTIFICATE_NOT_TRUSTED
    return ResultType.VALIDATION_FAILURE
