from enum import StrEnum


class SignatureCheck(StrEnum):
    INVALID = "invalid"
    UNVERIFIED = "unverified"
    VALID = "valid"

    def __str__(self) -> str:
        return str(self.value)
