"""Proofs of bulk verification results: the signed result file and the checks a third party makes.

When a live bulk job completes, its results are written as one CSV file (CSV_HEADER, one row per
distinct address in the list's order; UTF-8, LF line ends, so a copy read as text hashes the
same; every cell quoted, formulas neutralised: shared/csv_files.py's writer) and the file's
SHA-256 fingerprint (lower-case hex) is signed with the platform's Ed25519 key, the one webhooks
are signed with (signing_keys/). What is signed is

    b"postline-proof.v1." + <fingerprint as 64 ASCII hex digits>

(the prefix keeps a proof signature from ever being mistaken for a webhook's, which signs
"<timestamp>.<body>"). The registry records, per fingerprint, the kid, the public key, the
signature and when it was issued; keys rotate and leave /.well-known/svc/keys a week after they
are replaced, but the registry keeps the public half it signed with, so a proof stays checkable.

Checking a proof (POST /v3/validate/proofs/verify, `check`): the fingerprint is the file's own
(when the file is sent) or the one claimed; the registry entry is that of the claimed fingerprint
if one is given, else the file's.

- fingerprint: `unknown` when the registry has no entry; `mismatch` when the file sent is not the
  file the entry (the claimed fingerprint) was issued for (it was altered); else `matches`;
- signature: `unverified` when there is no entry to check against; else the signature sent (or,
  when none is, the registry's own) is checked with the entry's public key over the entry's
  fingerprint: `valid` or `invalid`;
- verified: matches and valid.

Test-mode jobs have no result file and no proof: their results are simulated, and a signed proof
would certify addresses nobody checked.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from datetime import datetime
from enum import StrEnum

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey
from pydantic import ConfigDict, Field, model_validator

from postline.shared.base import Model
from postline.verification.models import ValidationResult

REGISTRY = "postline:verification-proofs:v1"  # the registry a ProofVerificationResult names
PROOF_CONTEXT = b"postline-proof.v1."
FINGERPRINT_PATTERN = r"^[0-9a-f]{64}$"
DOWNLOAD_SECONDS = 900  # a result file's presigned download URL lives 15 minutes

CSV_HEADER = (
    "address",
    "status",
    "sub_status",
    "recommendation",
    "confidence",
    "risk",
    "reason",
    "did_you_mean",
    "account",
    "domain",
    "mx_provider",
    "mx_record",
    "mx_found",
    "is_catch_all",
    "is_disposable",
    "is_role_address",
    "is_free_provider",
    "smtp_check",
    "domain_age_days",
    "verification_id",
)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_row(result: ValidationResult) -> tuple[str, ...]:
    """One result as the file's row: null as empty, booleans true/false, enums by value."""
    fields = result.model_dump(mode="json")
    return tuple(_cell(fields[name]) for name in CSV_HEADER)


def signed_message(fingerprint: str) -> bytes:
    return PROOF_CONTEXT + fingerprint.encode("ascii")


def fingerprint_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def result_filename(job_id: str) -> str:
    return f"{job_id}-results.csv"


class ProofEntry(Model):
    """The registry's record of one signed file (resources table, PROOF#<fingerprint>)."""

    fingerprint: str
    kid: str
    public_key: str  # base64 of the raw 32-byte Ed25519 public key
    signature: str  # base64 of the 64-byte signature of signed_message(fingerprint)
    issued_at: datetime
    job_id: str  # the registry's own bookkeeping: never answered to a verifier
    account_id: str


class ResultFile(Model):
    """What a completed job records of its file (the job item's `result_file`)."""

    filename: str
    rows: int
    size_bytes: int
    fingerprint: str
    kid: str
    signature: str
    issued_at: datetime


class BulkResultFile(Model):
    """GET /v3/validate/bulk/{id}/file: the download and its proof."""

    job_id: str
    filename: str
    download_url: str = Field(description="A presigned GET of the CSV, valid until expires_at.")
    expires_at: datetime
    rows: int
    size_bytes: int
    fingerprint: str = Field(description="SHA-256 of the file's bytes, lower-case hex.")
    signature: str = Field(description='Base64 Ed25519 signature of "postline-proof.v1." + fingerprint.')
    kid: str = Field(description="The signing key's id in /.well-known/svc/keys.")
    registry: str
    issued: datetime


class ProofVerifyRequest(Model):
    model_config = ConfigDict(extra="forbid")

    file: str | None = Field(
        default=None, description="The result file's content, exactly as downloaded (UTF-8); its SHA-256 is checked."
    )
    fingerprint: str | None = Field(
        default=None, pattern=FINGERPRINT_PATTERN, description="The claimed SHA-256 of the file, lower-case hex."
    )
    signature: str | None = Field(
        default=None, max_length=200, description="The claimed signature (base64) to check with the registry's key."
    )

    @model_validator(mode="after")
    def _something_to_check(self) -> ProofVerifyRequest:
        if self.file is None and self.fingerprint is None:
            raise ValueError("send the file, or its fingerprint (and signature)")
        return self


class SignatureCheck(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    UNVERIFIED = "unverified"


class FingerprintCheck(StrEnum):
    MATCHES = "matches"
    MISMATCH = "mismatch"
    UNKNOWN = "unknown"


class ProofVerificationResult(Model):
    verified: bool
    signature: SignatureCheck
    fingerprint: FingerprintCheck
    registry: str
    issued: datetime | None


def signature_valid(public_key: bytes, fingerprint: str, signature: bytes) -> bool:
    try:
        VerifyKey(public_key).verify(signed_message(fingerprint), signature)
    except (BadSignatureError, ValueError):
        return False
    return True


def _decode(signature: str) -> bytes | None:
    try:
        raw = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 64 else None


def lookup_fingerprint(request: ProofVerifyRequest) -> str:
    """The fingerprint whose registry entry decides: the claimed one, else the file's."""
    if request.fingerprint is not None:
        return request.fingerprint
    assert request.file is not None
    return fingerprint_of(request.file.encode("utf-8"))


def check(request: ProofVerifyRequest, entry: ProofEntry | None) -> ProofVerificationResult:
    """The verdict on a file or a claim, given the registry's entry for lookup_fingerprint(request)."""
    if entry is None:
        return ProofVerificationResult(
            verified=False,
            signature=SignatureCheck.UNVERIFIED,
            fingerprint=FingerprintCheck.UNKNOWN,
            registry=REGISTRY,
            issued=None,
        )
    fingerprint = FingerprintCheck.MATCHES
    if request.file is not None and fingerprint_of(request.file.encode("utf-8")) != entry.fingerprint:
        fingerprint = FingerprintCheck.MISMATCH
    raw = _decode(request.signature) if request.signature is not None else base64.b64decode(entry.signature)
    good = raw is not None and signature_valid(base64.b64decode(entry.public_key), entry.fingerprint, raw)
    signature = SignatureCheck.VALID if good else SignatureCheck.INVALID
    return ProofVerificationResult(
        verified=fingerprint is FingerprintCheck.MATCHES and signature is SignatureCheck.VALID,
        signature=signature,
        fingerprint=fingerprint,
        registry=REGISTRY,
        issued=entry.issued_at,
    )
