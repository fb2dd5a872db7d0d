from enum import StrEnum


class FingerprintCheck(StrEnum):
    MATCHES = "matches"
    MISMATCH = "mismatch"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
