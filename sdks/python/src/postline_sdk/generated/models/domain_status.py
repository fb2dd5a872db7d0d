from enum import StrEnum


class DomainStatus(StrEnum):
    PARTIALLY_VERIFIED = "partially_verified"
    PENDING = "pending"
    UNVERIFIED = "unverified"
    VERIFICATION_FAILED = "verification_failed"
    VERIFICATION_TIMEOUT = "verification_timeout"
    VERIFIED = "verified"

    def __str__(self) -> str:
        return str(self.value)
