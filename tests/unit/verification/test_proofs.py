"""The proof checks (verification/proofs.py): every fingerprint and signature verdict, and the rows."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from nacl.signing import SigningKey
from pydantic import ValidationError

from postline.verification.proofs import (
    REGISTRY,
    FingerprintCheck,
    ProofEntry,
    ProofVerifyRequest,
    SignatureCheck,
    check,
    fingerprint_of,
    lookup_fingerprint,
    signed_message,
)

ISSUED = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FILE = "address,status\nada@example.com,valid\n"
KEY = SigningKey(bytes(range(32)))


def entry(content: str = FILE, key: SigningKey = KEY) -> ProofEntry:
    fingerprint = fingerprint_of(content.encode())
    return ProofEntry(
        fingerprint=fingerprint,
        kid="ed25519-20260105-test",
        public_key=base64.b64encode(bytes(KEY.verify_key)).decode(),
        signature=base64.b64encode(key.sign(signed_message(fingerprint)).signature).decode(),
        issued_at=ISSUED,
        job_id="vjob_1",
        account_id="acct_1",
    )


def verdict(request: ProofVerifyRequest, found: ProofEntry | None) -> tuple[bool, str, str]:
    result = check(request, found)
    assert result.registry == REGISTRY
    assert result.issued == (found.issued_at if found else None)
    return result.verified, result.fingerprint.value, result.signature.value


def test_the_file_alone_matches_its_entry_and_the_registry_signature_is_checked() -> None:
    request = ProofVerifyRequest(file=FILE)
    assert lookup_fingerprint(request) == fingerprint_of(FILE.encode())
    assert verdict(request, entry()) == (True, "matches", "valid")


def test_a_claimed_fingerprint_and_signature_without_the_file() -> None:
    proof = entry()
    request = ProofVerifyRequest(fingerprint=proof.fingerprint, signature=proof.signature)
    assert verdict(request, proof) == (True, "matches", "valid")


def test_an_altered_file_against_the_claimed_fingerprint_is_a_mismatch() -> None:
    proof = entry()
    request = ProofVerifyRequest(file=FILE.replace("valid", "invalid"), fingerprint=proof.fingerprint)
    assert lookup_fingerprint(request) == proof.fingerprint  # the claim decides which entry
    assert verdict(request, proof) == (False, "mismatch", "valid")


def test_no_entry_is_unknown_and_unverified() -> None:
    assert verdict(ProofVerifyRequest(file=FILE), None) == (False, "unknown", "unverified")
    assert verdict(ProofVerifyRequest(fingerprint="0" * 64, signature="AAAA"), None) == (
        False,
        "unknown",
        "unverified",
    )


@pytest.mark.parametrize(
    "signature",
    [
        base64.b64encode(SigningKey(bytes(32)).sign(b"x").signature).decode(),  # another key's, other bytes
        base64.b64encode(bytes(64)).decode(),
        "c2hvcnQ=",  # 5 bytes
        "not base64!",
    ],
)
def test_a_signature_that_does_not_verify_is_invalid(signature: str) -> None:
    proof = entry()
    request = ProofVerifyRequest(fingerprint=proof.fingerprint, signature=signature)
    assert verdict(request, proof) == (False, "matches", "invalid")


def test_a_registry_entry_whose_own_signature_is_bad_is_invalid() -> None:
    forged = entry(key=SigningKey(bytes(32)))  # signed by a key other than the recorded one
    assert verdict(ProofVerifyRequest(file=FILE), forged) == (False, "matches", "invalid")


def test_the_request_needs_the_file_or_a_fingerprint_of_the_right_form() -> None:
    with pytest.raises(ValidationError):
        ProofVerifyRequest(signature="AAAA")
    with pytest.raises(ValidationError):
        ProofVerifyRequest(fingerprint="ABC")
    assert FingerprintCheck.MISMATCH.value == "mismatch" and SignatureCheck.UNVERIFIED.value == "unverified"
