"""Sending domains, as far as sending needs them: verified or not, and the DKIM key that signs."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel


class DomainStatus(StrEnum):
    VERIFIED = "verified"
    PENDING = "pending"
    UNVERIFIED = "unverified"
    PARTIALLY_VERIFIED = "partially_verified"
    VERIFICATION_FAILED = "verification_failed"
    VERIFICATION_TIMEOUT = "verification_timeout"


class SendingDomain(BaseModel):
    account_id: str
    domain: str
    status: DomainStatus
    dkim_selector: str
    dkim_private_key: str  # PEM; stored encrypted under the content key, decrypted on read

    @property
    def verified(self) -> bool:
        return self.status is DomainStatus.VERIFIED


def dkim_txt(public_key_b64: str) -> str:
    """The TXT record value published at <selector>._domainkey.<domain>."""
    return f"v=DKIM1; k=rsa; p={public_key_b64}"
