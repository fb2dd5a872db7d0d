from enum import StrEnum


class VerificationResult(StrEnum):
    ABUSE = "abuse"
    CATCH_ALL = "catch_all"
    DO_NOT_MAIL = "do_not_mail"
    INVALID = "invalid"
    SPAMTRAP = "spamtrap"
    UNKNOWN = "unknown"
    VALID = "valid"

    def __str__(self) -> str:
        return str(self.value)
